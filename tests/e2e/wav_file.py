"""16-bit PCM WAV files for the audio tests, through Python's wave module.

One writer for every test that makes a WAV: callers quantize their own signal (each test keeps
its exact samples) and hand the int16 frames here.
"""
import wave

import numpy as np


def write_pcm16(path, pcm, rate):
    """Writes int16 samples `pcm` ([n] mono or [n, channels]) to `path` as a WAV at `rate` Hz."""
    pcm = np.asarray(pcm, dtype="<i2")
    with wave.open(path, "wb") as w:
        w.setnchannels(1 if pcm.ndim == 1 else pcm.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
