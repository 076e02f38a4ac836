"""NumPy oracle for Qwen2-VL's multimodal rotary positions (mRoPE), written from Hugging Face's
documented get_rope_index semantics for images (the model's own rule, not ogai's code):
scan the ids for <|vision_start|>; an image begins at the next image-pad token; text before it
counts on from the previous maximum + 1 on all three axes; the image's merged grid
(t, h / merge, w / merge) is laid out with numpy index grids offset by the text's end; the tail
text continues; rope delta = max + 1 - len(ids).

Usage: mrope_oracle.py CASES.json OUT.json
CASES: a list of {"ids": [...], "vision_start": int, "image_pad": int, "grids": [[t,h,w],...], "merge": int}
OUT:   a list (same order) of {"positions": [[...],[...],[...]], "delta": int}
"""
import json
import sys

import numpy as np


def rope_index(ids, vision_start, image_pad, grids, merge):
    ids = np.asarray(ids, dtype=np.int64)
    starts = np.flatnonzero(ids == vision_start)
    image_count = int(np.sum(ids[starts[starts + 1 < len(ids)] + 1] == image_pad))
    assert image_count == len(grids), (image_count, len(grids))
    pieces = []
    st = 0
    for t, h, w in grids:
        ed = st + int(np.flatnonzero(ids[st:] == image_pad)[0])
        gt, gh, gw = t, h // merge, w // merge
        base = pieces[-1].max() + 1 if pieces else 0
        text = ed - st
        pieces.append(np.broadcast_to(np.arange(text), (3, text)) + base)
        tt, hh, ww = np.meshgrid(np.arange(gt), np.arange(gh), np.arange(gw), indexing="ij")
        pieces.append(np.stack([tt.ravel(), hh.ravel(), ww.ravel()]) + text + base)
        st = ed + gt * gh * gw
    if st < len(ids):
        base = pieces[-1].max() + 1 if pieces else 0
        text = len(ids) - st
        pieces.append(np.broadcast_to(np.arange(text), (3, text)) + base)
    positions = np.concatenate(pieces, axis=1) if pieces else np.zeros((3, 0), dtype=np.int64)
    delta = int(positions.max() + 1 - len(ids)) if positions.size else 0
    return positions, delta


def main():
    out = []
    for case in json.load(open(sys.argv[1])):
        positions, delta = rope_index(case["ids"], case["vision_start"], case["image_pad"], case["grids"],
                                      case["merge"])
        out.append({"positions": positions.astype(int).tolist(), "delta": delta})
    json.dump(out, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
