"""llama.cpp as a benchmark peer, through the prebuilt CPU library of the npm package
@node-llama-cpp/linux-x64 (../shared/peers.md), called from Python with ctypes: its own quantizer
(llama_model_quantize, what llama-quantize runs), greedy decoding timed per step, and logits for KL.

    LLAMA_CPP_BINS=.../node_modules/@node-llama-cpp/linux-x64/bins/linux-x64

The structs passed by value or pointer (llama_model_quantize_params, llama_context_params,
llama_batch) are laid out as in the llama.h of the release that package ships (its node-llama-cpp
sibling carries the source as llama/gitRelease.bundle); only the leading fields the bench sets are
named, the rest is an opaque tail filled by llama.cpp's own *_default_params(). Check the offsets
again when the pinned version changes (peers.md pins 3.21.1).
"""
import ctypes
import os
import time

import numpy as np

FTYPES = {"F32": 0, "Q8_0": 7, "Q4_0": 2, "Q4_K_M": 15}


class _QuantizeParams(ctypes.Structure):
    _fields_ = [("nthread", ctypes.c_int32), ("ftype", ctypes.c_int32), ("tail", ctypes.c_uint8 * 120)]


class _ContextParams(ctypes.Structure):
    # n_ctx, n_batch, n_ubatch, n_seq_max, n_rs_seq, n_outputs_max, n_outputs_max_per_seq, n_threads,
    # n_threads_batch, then the rest.
    _fields_ = [("n_ctx", ctypes.c_uint32), ("n_batch", ctypes.c_uint32), ("n_ubatch", ctypes.c_uint32),
                ("n_seq_max", ctypes.c_uint32), ("n_rs_seq", ctypes.c_uint32), ("n_outputs_max", ctypes.c_uint32),
                ("n_outputs_max_per_seq", ctypes.c_uint32), ("n_threads", ctypes.c_int32),
                ("n_threads_batch", ctypes.c_int32), ("tail", ctypes.c_uint8 * 256)]


class _ModelParams(ctypes.Structure):
    _fields_ = [("blob", ctypes.c_uint8 * 256)]


class _Batch(ctypes.Structure):
    _fields_ = [("n_tokens", ctypes.c_int32), ("token", ctypes.POINTER(ctypes.c_int32)),
                ("embd", ctypes.c_void_p), ("pos", ctypes.c_void_p), ("n_seq_id", ctypes.c_void_p),
                ("seq_id", ctypes.c_void_p), ("logits", ctypes.c_void_p)]


_LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)


class LlamaCpp:
    def __init__(self, bins):
        self.bins = bins
        mode = ctypes.RTLD_GLOBAL
        ctypes.CDLL(os.path.join(bins, "libggml-base.so"), mode=mode)
        ggml = ctypes.CDLL(os.path.join(bins, "libggml.v0.4.0.so"), mode=mode)
        ll = ctypes.CDLL(os.path.join(bins, "libllama.v0.4.0.so"), mode=mode)
        self._quiet = _LOG_FN(lambda level, text, user: None)  # llama.cpp logs every tensor otherwise
        ll.llama_log_set(self._quiet, None)
        ggml.ggml_backend_load_all_from_path(bins.encode())  # the CPU variant for this processor
        ll.llama_backend_init()
        ll.llama_model_quantize_default_params.restype = _QuantizeParams
        ll.llama_model_quantize.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_QuantizeParams)]
        ll.llama_model_quantize.restype = ctypes.c_uint32
        ll.llama_model_default_params.restype = _ModelParams
        ll.llama_model_load_from_file.argtypes = [ctypes.c_char_p, _ModelParams]
        ll.llama_model_load_from_file.restype = ctypes.c_void_p
        ll.llama_context_default_params.restype = _ContextParams
        ll.llama_init_from_model.argtypes = [ctypes.c_void_p, _ContextParams]
        ll.llama_init_from_model.restype = ctypes.c_void_p
        ll.llama_batch_get_one.argtypes = [ctypes.POINTER(ctypes.c_int32), ctypes.c_int32]
        ll.llama_batch_get_one.restype = _Batch
        ll.llama_decode.argtypes = [ctypes.c_void_p, _Batch]
        ll.llama_decode.restype = ctypes.c_int32
        ll.llama_get_logits_ith.argtypes = [ctypes.c_void_p, ctypes.c_int32]
        ll.llama_get_logits_ith.restype = ctypes.POINTER(ctypes.c_float)
        ll.llama_free.argtypes = [ctypes.c_void_p]
        ll.llama_model_free.argtypes = [ctypes.c_void_p]
        self.ll = ll

    def quantize(self, src, dst, ftype, threads=2):
        params = self.ll.llama_model_quantize_default_params()
        params.nthread, params.ftype = threads, FTYPES[ftype]
        if self.ll.llama_model_quantize(src.encode(), dst.encode(), ctypes.byref(params)) != 0:
            raise RuntimeError(f"llama_model_quantize {src} -> {ftype} failed")

    def load(self, path):
        model = self.ll.llama_model_load_from_file(path.encode(), self.ll.llama_model_default_params())
        if not model:
            raise RuntimeError(f"llama.cpp cannot load {path}")
        return model

    def free_model(self, model):
        self.ll.llama_model_free(model)

    def _context(self, model, threads, n_ctx=512):
        p = self.ll.llama_context_default_params()
        p.n_ctx = p.n_batch = p.n_ubatch = n_ctx
        p.n_threads = p.n_threads_batch = threads
        ctx = self.ll.llama_init_from_model(model, p)
        if not ctx:
            raise RuntimeError("llama_init_from_model failed")
        return ctx

    def _step(self, ctx, ids, vocab):
        arr = (ctypes.c_int32 * len(ids))(*ids)
        if self.ll.llama_decode(ctx, self.ll.llama_batch_get_one(arr, len(ids))) != 0:
            raise RuntimeError("llama_decode failed")
        return np.ctypeslib.as_array(self.ll.llama_get_logits_ith(ctx, -1), shape=(vocab,))

    def bench(self, model, vocab, threads, prompt, gen):
        """(decode tok/s, prefill tok/s): the prompt in one batch, then `gen` greedy steps."""
        ctx = self._context(model, threads)
        try:
            t0 = time.perf_counter()
            logits = self._step(ctx, prompt, vocab)
            t1 = time.perf_counter()
            for _ in range(gen):
                logits = self._step(ctx, [int(np.argmax(logits))], vocab)
            t2 = time.perf_counter()
        finally:
            self.ll.llama_free(ctx)
        return gen / (t2 - t1), len(prompt) / (t1 - t0)

    def greedy(self, model, vocab, prompt, gen, threads):
        ctx = self._context(model, threads)
        try:
            logits, out = self._step(ctx, prompt, vocab), []
            for _ in range(gen):
                out.append(int(np.argmax(logits)))
                logits = self._step(ctx, [out[-1]], vocab)
        finally:
            self.ll.llama_free(ctx)
        return out

    def forced_log_probs(self, model, vocab, ids, first, threads):
        """log-softmax rows predicting ids[first + 1:], each read after feeding ids[:i + 1]."""
        ctx = self._context(model, threads)
        rows = []
        try:
            logits = self._step(ctx, ids[:first + 1], vocab)
            for i in range(first, len(ids) - 1):
                row = logits.astype(np.float64)
                rows.append(row - row.max() - np.log(np.exp(row - row.max()).sum()))
                logits = self._step(ctx, [ids[i + 1]], vocab)
        finally:
            self.ll.llama_free(ctx)
        return rows


def compare(peer, ref_model, model, vocab, prompts, tokens, threads):
    """ogai compare's measures for llama.cpp: KL(ref || model), greedy agreement and first divergence,
    teacher-forced on each prompt followed by the reference's greedy continuation."""
    kls, agree, first = [], 0, []
    for ids in prompts:
        run_a = peer.greedy(ref_model, vocab, ids, tokens, threads)
        run_b = peer.greedy(model, vocab, ids, tokens, threads)
        diverge = next((i for i, (a, b) in enumerate(zip(run_a, run_b)) if a != b), -1)
        first.append(diverge)
        forced = list(ids) + run_a
        pa = peer.forced_log_probs(ref_model, vocab, forced, len(ids) - 1, threads)
        pb = peer.forced_log_probs(model, vocab, forced, len(ids) - 1, threads)
        for a, b in zip(pa, pb):
            kls.append(max(float((np.exp(a) * (a - b)).sum()), 0.0))
            agree += int(np.argmax(a) == np.argmax(b))
    return {"greedy_agreement": agree / len(kls), "kl_mean": float(np.mean(kls)), "kl_max": float(np.max(kls)),
            "first_divergence": first}
