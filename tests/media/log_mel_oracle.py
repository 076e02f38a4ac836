#!/usr/bin/python3
"""NumPy oracle for ogai's log-mel features (tests/media/audio_log_mel_test.cc).

Written from the definitions, in float64, independently of src/media/audio:
STFT (numpy "reflect" or zero padding by n_fft // 2 when centred; a periodic or symmetric
Hann / Hamming / rectangular window of win_length points centred in n_fft; numpy.fft.rfft),
|X|^power, a triangular mel filterbank (htk or slaney scale, slaney or no area norm), a floored
logarithm (log10, ln, 10 log10) and the normalizations (Whisper's, per feature, all features).

usage: log_mel_oracle.py CASE.json   (reads CASE.json's "signal" file of float32 samples and
writes float32 features [n_mels, frames] to its "output" file)
"""
import json
import sys

import numpy as np


def hz_to_mel(f, scale):
    f = np.asarray(f, dtype=np.float64)
    if scale == "htk":
        return 2595.0 * np.log10(1.0 + f / 700.0)
    f_sp = 200.0 / 3
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = np.log(6.4) / 27.0
    return np.where(f >= min_log_hz, min_log_mel + np.log(np.maximum(f, 1e-300) / min_log_hz) / logstep, f / f_sp)


def mel_to_hz(m, scale):
    m = np.asarray(m, dtype=np.float64)
    if scale == "htk":
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    f_sp = 200.0 / 3
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = np.log(6.4) / 27.0
    return np.where(m >= min_log_mel, min_log_hz * np.exp(logstep * (m - min_log_mel)), f_sp * m)


def mel_filterbank(sr, n_fft, n_mels, f_min, f_max, scale, norm):
    fft_freqs = np.arange(n_fft // 2 + 1) * sr / n_fft
    mels = np.linspace(hz_to_mel(f_min, scale), hz_to_mel(f_max, scale), n_mels + 2)
    hz = mel_to_hz(mels, scale)
    weights = np.zeros((n_mels, fft_freqs.size))
    for m in range(n_mels):
        rise = (fft_freqs - hz[m]) / (hz[m + 1] - hz[m])
        fall = (hz[m + 2] - fft_freqs) / (hz[m + 2] - hz[m + 1])
        weights[m] = np.maximum(0.0, np.minimum(rise, fall))
        if norm == "slaney":
            weights[m] *= 2.0 / (hz[m + 2] - hz[m])
    return weights


def window(kind, win_length, periodic, n_fft):
    denom = win_length if periodic else max(win_length - 1, 1)
    i = np.arange(win_length)
    if kind == "rectangular":
        w = np.ones(win_length)
    else:
        a = 0.54 if kind == "hamming" else 0.5
        w = a - (1 - a) * np.cos(2 * np.pi * i / denom)
    out = np.zeros(n_fft)
    start = (n_fft - win_length) // 2
    out[start:start + win_length] = w
    return out


def stft_power(x, c):
    n_fft, hop = c["n_fft"], c["hop_length"]
    if c["center"]:
        x = np.pad(x, n_fft // 2, mode="reflect" if c["pad_mode"] == "reflect" else "constant")
    frames = 1 + (len(x) - n_fft) // hop if len(x) >= n_fft else 0
    if c["drop_last_frame"] and frames > 0:
        frames -= 1
    w = window(c["window"], c["win_length"], c["window_periodic"], n_fft)
    idx = np.arange(n_fft)[None, :] + hop * np.arange(frames)[:, None]
    spec = np.fft.rfft(x[idx] * w[None, :], axis=1)  # [frames, bins]
    return (np.abs(spec) ** c["power"]).T  # [bins, frames]


def log_mel(x, c):
    power = stft_power(x.astype(np.float64), c)
    f_max = c["f_max"] if c["f_max"] >= 0 else c["sample_rate"] / 2
    fb = mel_filterbank(c["sample_rate"], c["n_fft"], c["n_mels"], c["f_min"], f_max, c["mel_scale"], c["mel_norm"])
    mel = fb @ power
    floor = c["log_floor"]
    if c["log"] != "none":
        mel = np.maximum(mel, floor) if c["log_floor_mode"] == "clamp" else mel + floor
        mel = {"log10": np.log10, "ln": np.log, "db": lambda v: 10 * np.log10(v)}[c["log"]](mel)
    norm, eps = c["normalize"], c["epsilon"]
    if norm == "whisper":
        mel = (np.maximum(mel, mel.max() - 8.0) + 4.0) / 4.0
    elif norm == "per_feature":
        mel = (mel - mel.mean(axis=1, keepdims=True)) / np.sqrt(mel.var(axis=1, keepdims=True) + eps)
    elif norm == "all_features":
        mel = (mel - mel.mean()) / np.sqrt(mel.var() + eps)
    return mel


def main():
    case = json.load(open(sys.argv[1]))
    x = np.fromfile(case["signal"], dtype="<f4")
    log_mel(x, case).astype("<f4").tofile(case["output"])


if __name__ == "__main__":
    main()
