"""Tuning: sweep a target's parameters on the running machine, keep the winners.

    space     which parameters of each kind of target can be swept, and their values
    points    one scratch target description per sweep point
    host      what machine this is (CPU model and family, features, compiler)
    runner    build the points, verify them, time them, choose the winners
    profiles  tuned profiles: the winners as data, and how `generate` applies them
    toml      a small TOML writer for the files above

Like FFTW's wisdom turned into code: the measuring happens here, once, and the result
is frozen into generated/; the runtime never measures.
"""
