"""Tuning: sweep a target's parameters on the running machine, keep the winners.

    points    one scratch target description per sweep point
    host      what machine this is (CPU model and family, features, compiler)
    runner    build the points, verify them, time them, choose the winners

It is the top layer, beside the CLI: it drives `pipeline` like `generate` does. What a
sweep may vary is each emitter's `sweep` (space.py); the winners become tuned profiles
(profiles.py), which `generate` applies; tomlwrite.py writes both.

Like FFTW's wisdom turned into code: the measuring happens here, once, and the result
is frozen into generated/; the runtime never measures.
"""
