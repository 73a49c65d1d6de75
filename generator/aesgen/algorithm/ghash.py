"""GHASH (SP 800-38D) as vector programs over 64-bit lanes, one 128-bit block per pair
of lanes, stated once for every ISA with a carry-less multiply.

The domain every fast implementation uses: a block is read as a big-endian 128-bit
integer (byte-reversed after a little-endian load: `bswap`), which is the field element
with its bits in reverse order. The carry-less product of two such integers is the
reversed 255-bit product shifted by one; multiplying by a *twisted* hash key
H' = H * x^-1 (the block integer shifted left by one, XOR 0xc2000...01 when a bit falls
out) absorbs that shift, so a product needs no adjustment. Products are schoolbook
summed unreduced over N blocks against H^N..H^1 (aggregated reduction) and reduced once.
Two choices, both parameters of a variant:

    multiply   schoolbook: four 64x64 carry-less multiplies per block;
               karatsuba: three, (x_lo + x_hi)(h_lo + h_hi) for the middle, with each
               power's h_lo + h_hi precomputed after the powers in the table (from
               PACKED_HALVES powers on, two to a 16-byte slot: the table stays 24
               bytes a power, so 32 powers fit a GCM key)
    reduction  shifts: two folds by the reflected polynomial with shifts and XORs;
               clmul: the same two folds as two carry-less multiplies by its low word
               0xc2 << 56 and two half swaps (7 operations instead of about 20)

The model checks every program against reference_gcm.

Wider vectors (VPCLMULQDQ on ymm or zmm) take `width` blocks per vector: every op works
per 128-bit block, so the same products and reduction run on all blocks at once, and
since the reduction is linear, the blocks' results are summed after it (log2(width)
block shuffles). The table holds the powers in the order the blocks use them,
H^N first, so one vector load fetches a vector's powers.
"""

from __future__ import annotations

from ..ir import Builder, Memory, Program

LANE = 64
POLY_HIGH = 0xC2 << 56      # the reflected polynomial's high word; its low word is 1
MULTIPLIES = ("schoolbook", "karatsuba")
REDUCTIONS = ("shifts", "clmul")
PACKED_HALVES = 32


def _product(bld: Builder, x: str, h: str) -> tuple[str, str, str]:
    """(LO, MI, HI) of the 256-bit carry-less product x * h, MI at x^64."""
    lo = bld.clmul(x, h, 0x00, hint="lo")
    hi = bld.clmul(x, h, 0x11, hint="hi")
    mi = bld.xor(bld.clmul(x, h, 0x01, hint="m"), bld.clmul(x, h, 0x10, hint="m"), hint="mi")
    return lo, mi, hi


def _halves_sum(bld: Builder, x: str) -> str:
    """x_lo + x_hi in the low word (the high word too)."""
    return bld.xor(x, bld.swap64(x, hint="xs"), hint="xs")


def _karatsuba(bld: Builder, x: str, h: str, hsum: str, sel: int = 0x00) -> tuple[str, str, str]:
    """(LO, MD, HI): MD = (x_lo + x_hi)(h_lo + h_hi), so that MI = MD + LO + HI, which
    is linear, so it is formed once after the products are summed; hsum holds the half
    sum in the word sel picks."""
    lo = bld.clmul(x, h, 0x00, hint="lo")
    hi = bld.clmul(x, h, 0x11, hint="hi")
    md = bld.clmul(_halves_sum(bld, x), hsum, sel, hint="md")
    return lo, md, hi


def _block_product(bld: Builder, multiply: str, x: str, h: str, half) -> tuple[str, str, str]:
    """One block times its power by the chosen multiply: (LO, MI, HI), or Karatsuba's
    (LO, MD, HI); `half()` gives the power's half sum and the selector of its word,
    which only Karatsuba reads."""
    return _karatsuba(bld, x, h, *half()) if multiply == "karatsuba" else _product(bld, x, h)


def _middle(bld: Builder, lo: str, mi: str, hi: str, multiply: str) -> str:
    """MI from the summed products: Karatsuba's MD + LO + HI, schoolbook's as it is."""
    return bld.xor(bld.xor(mi, lo, hint="MI"), hi, hint="MI") if multiply == "karatsuba" else mi


def _reduce_shifts(bld: Builder, lo: str, mi: str, hi: str) -> str:
    t = bld.xor(lo, bld.shuffle("unpacklo", 0, mi, LANE, hint="t"), hint="t")     # low 128 bits
    u = bld.xor(hi, bld.shuffle("unpackhi", mi, 0, LANE, hint="u"), hint="u")     # high 128 bits
    # first fold: the low word's x^63, x^62, x^57 multiples into the word above it
    a = bld.xor(bld.xor(bld.shl(t, 63, hint="f"), bld.shl(t, 62, hint="f"), hint="f"),
                bld.shl(t, 57, hint="f"), hint="f")
    v = bld.xor(t, bld.shuffle("unpacklo", 0, a, LANE, hint="v"), hint="v")
    # second fold: v >> 1, >> 2, >> 7 as 128-bit shifts, plus v itself
    spill = bld.xor(bld.xor(bld.shl(v, 63, hint="s"), bld.shl(v, 62, hint="s"), hint="s"),
                    bld.shl(v, 57, hint="s"), hint="s")
    down = bld.xor(bld.xor(bld.shr(v, 1, hint="d"), bld.shr(v, 2, hint="d"), hint="d"),
                   bld.shr(v, 7, hint="d"), hint="d")
    w = bld.xor(bld.xor(v, down, hint="w"), bld.shuffle("unpackhi", spill, 0, LANE, hint="w"), hint="w")
    return bld.xor(u, w, hint="r")


def _reduce_clmul(bld: Builder, lo: str, mi: str, hi: str) -> str:
    # each fold moves the lowest word up two words (the half swap) and adds its product
    # with the polynomial's x^63 + x^62 + x^57 to the two words above it
    poly = bld.shuffle("unpacklo", 1, POLY_HIGH, LANE, hint="poly")
    mid = bld.xor(bld.xor(mi, bld.swap64(lo, hint="f"), hint="f"), bld.clmul(lo, poly, 0x10, hint="f"), hint="f")
    return bld.xor(bld.xor(hi, bld.swap64(mid, hint="r"), hint="r"), bld.clmul(mid, poly, 0x10, hint="r"), hint="r")


def _reduce(bld: Builder, lo: str, mi: str, hi: str, reduction: str = "shifts") -> str:
    """The product LO + MI x^64 + HI x^128 reduced: the GHASH product as a block integer."""
    return (_reduce_clmul if reduction == "clmul" else _reduce_shifts)(bld, lo, mi, hi)


def _twist(bld: Builder, b: str) -> str:
    """b * x^-1 in the field, on block integers: b << 1, XOR 0xc2..01 if b's top bit was
    set; no branch: the bit c itself is the low word's 1, and c << 63, << 62, << 57 the
    high word's 0xc2 << 56."""
    carry = bld.shr(b, LANE - 1, hint="c")
    shifted = bld.xor(bld.shl(b, 1, hint="sh"), bld.shuffle("unpacklo", 0, carry, LANE, hint="sh"), hint="sh")
    top = bld.shuffle("unpackhi", carry, carry, LANE, hint="m")    # the top bit in both lanes
    high = bld.xor(bld.xor(bld.shl(top, 63, hint="m"), bld.shl(top, 62, hint="m"), hint="m"),
                   bld.shl(top, 57, hint="m"), hint="m")
    return bld.xor(shifted, bld.shuffle("unpacklo", top, high, LANE, hint="p"), hint="tw")


def _check_choices(multiply: str, reduction: str) -> None:
    if multiply not in MULTIPLIES:
        raise ValueError(f"multiply {multiply!r} is not one of {', '.join(MULTIPLIES)}")
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction {reduction!r} is not one of {', '.join(REDUCTIONS)}")


def packed_halves(powers: int, multiply: str) -> bool:
    """Whether the table packs Karatsuba's half sums two to a slot: slot s holds the half
    sum of table entry s in its low word and of entry s + powers/2 in its high word."""
    return multiply == "karatsuba" and powers >= PACKED_HALVES


def table_bytes(powers: int, multiply: str = "schoolbook") -> int:
    """The set-up's table: the powers, then (Karatsuba) their half sums."""
    if multiply != "karatsuba":
        return 16 * powers
    return 16 * powers + (8 if packed_halves(powers, multiply) else 16) * powers


def table_layout(powers: int, multiply: str = "schoolbook") -> str:
    """The name of setkey's table layout, which code reading another emitter's table
    (a stitched GCM loop) and the GHASH variant that wrote it must agree on."""
    halves = ("" if multiply != "karatsuba" else ", then their half sums two to a slot"
              if packed_halves(powers, multiply) else ", then their half sums")
    return f"{powers} twisted powers{halves}"


def _half_load(bld: Builder, blocks: int, first: int, width: int, hint: str) -> tuple[str, int]:
    """(the vector of half sums of table entries first.., the clmul selector that reads
    them from it): a 16-byte slot each, or two to a slot when packed."""
    if not packed_halves(blocks, "karatsuba"):
        return bld.vld("htable", 16 * blocks + 16 * first, hint=hint), 0x00
    half = blocks // 2
    if first % half + width > half:
        raise ValueError(f"{blocks} packed half sums: a vector of {width} from entry {first} straddles the halves")
    return bld.vld("htable", 16 * blocks + 16 * (first % half), hint=hint), 0x00 if first < half else 0x10


def _check_width(blocks: int, width: int) -> None:
    if width not in (1, 2, 4) or blocks % width:
        raise ValueError(f"{blocks} blocks in vectors of {width}")


def _hash_blocks(bld: Builder, acc: str, blocks: int, width: int, multiply: str, reduction: str,
                 table_powers: int) -> str:
    """The reduced products of (y + block 0), block 1, ... with H^blocks..H^1, one per
    block of each vector, not yet summed across the vector's blocks (acc: y as a block
    integer in block 0, zero in the others), from a table of table_powers powers (its
    last `blocks` entries)."""
    sums = None
    first = table_powers - blocks
    for j in range(blocks // width):
        x = bld.bswap(bld.vld("data", 16 * width * j, hint="x"), hint="x")
        if j == 0:
            x = bld.xor(x, acc, hint="x")
        power = f"h{blocks - width * j}"        # H^(blocks - i), i in the vector
        h = bld.vld("htable", 16 * (first + width * j), hint=power + "_")
        part = _block_product(bld, multiply, x, h,
                              lambda: _half_load(bld, table_powers, first + width * j, width, power + "s"))
        sums = part if sums is None else tuple(bld.xor(s, p, hint=n) for s, p, n in zip(sums, part, ("LO", "MI", "HI")))
    lo, mi, hi = sums
    return _reduce(bld, lo, _middle(bld, lo, mi, hi, multiply), hi, reduction)


def _memories(blocks: int, multiply: str, table_powers: int | None = None) -> tuple[Memory, Memory]:
    return (Memory("data", "bytes", 16 * blocks, False),
            Memory("htable", "bytes", table_bytes(table_powers or blocks, multiply), False))


def update(blocks: int, width: int = 1, name: str | None = None, multiply: str = "schoolbook",
           reduction: str = "shifts", table_powers: int | None = None) -> Program:
    """y = GHASH over `blocks` blocks continuing from y, `width` blocks per vector:
    memory y (16 bytes, read and written), data (16 * blocks), htable (setkey's table:
    the twisted powers H^blocks..H^1, 16 bytes each, as the register image of the block
    integer; for Karatsuba then the same powers' half sums). With table_powers (more
    than blocks), the table is of that many powers and the update reads its last
    `blocks` entries, H^blocks..H^1: a shorter update on a longer table."""
    _check_width(blocks, width)
    _check_choices(multiply, reduction)
    table_powers = table_powers or blocks
    if table_powers < blocks:
        raise ValueError(f"{blocks} blocks on a table of {table_powers} powers")
    prog = Program(name or f"ghash_update_x{blocks}", LANE,
                   (Memory("y", "bytes", 16, True),) + _memories(blocks, multiply, table_powers), lanes=2 * width)
    bld = Builder(prog)
    acc = bld.bswap(bld.vld128("y", 0, hint="acc"), hint="acc")     # y into block 0 only
    r = _hash_blocks(bld, acc, blocks, width, multiply, reduction, table_powers)
    while width > 1:     # sum the blocks' reduced results: every block ends up holding it
        r = bld.xor(bld.shuffle("blocks", r, r, 0, hint="sum"), bld.shuffle("blocks", r, r, 1, hint="sum"), hint="sum")
        width //= 2
    bld.vst128("y", 0, bld.bswap(r, hint="out"))
    return prog


def update_unsummed(blocks: int, width: int, multiply: str = "schoolbook", reduction: str = "shifts",
                     table_powers: int | None = None) -> Program:
    """The core of `update` for a loop that keeps y in a register: input `acc` (y as a
    block integer in block 0, zero in the others), output the reduced products of each
    block (their sum across the vector is the new y as a block integer). The caller sums
    the blocks the way its ISA does best. table_powers: as in `update`."""
    _check_width(blocks, width)
    _check_choices(multiply, reduction)
    table_powers = table_powers or blocks
    if table_powers < blocks:
        raise ValueError(f"{blocks} blocks on a table of {table_powers} powers")
    prog = Program(f"ghash_update_x{blocks}_unsummed", LANE, _memories(blocks, multiply, table_powers),
                   lanes=2 * width, inputs=("acc",))
    bld = Builder(prog)
    r = _hash_blocks(bld, "acc", blocks, width, multiply, reduction, table_powers)
    prog.outputs = (r,)
    return prog


def tail(multiply: str = "schoolbook", reduction: str = "shifts", packed: bool = False) -> tuple[Program, Program, Program]:
    """Fewer than N blocks with one reduction, for the caller's loop over them: `first`
    (y XOR the first block, times its power) and `next` (each further block times its
    power) sum the products unreduced into `sums` (LO, MI or MD, HI: 48 bytes), and
    `reduce` reduces them into y. The caller passes each block's power H^(k-i) and, for
    Karatsuba, its half sum (`power`, `half`: 16 bytes each, from setkey's table); with
    the half sums packed (`packed`) the tail forms each from its power instead."""
    _check_choices(multiply, reduction)
    loads_half = multiply == "karatsuba" and not packed
    mems = (Memory("sums", "bytes", 48, True), Memory("data", "bytes", 16, False),
            Memory("power", "bytes", 16, False)) + ((Memory("half", "bytes", 16, False),) if loads_half else ())

    def product(bld: Builder, x: str) -> tuple[str, str, str]:
        h = bld.vld("power", 0, hint="h")
        return _block_product(bld, multiply, x, h, lambda: (bld.vld("half", 0, hint="hs") if loads_half
                                                            else _halves_sum(bld, h), 0x00))

    first = Program("ghash_tail_first", LANE, (Memory("y", "bytes", 16, False),) + mems, lanes=2)
    bld = Builder(first)
    x = bld.xor(bld.bswap(bld.vld("data", 0, hint="x"), hint="x"), bld.bswap(bld.vld("y", 0, hint="acc"), hint="acc"),
                hint="x")
    for i, part in enumerate(product(bld, x)):
        bld.vst("sums", 16 * i, part)

    more = Program("ghash_tail_next", LANE, mems, lanes=2)
    bld = Builder(more)
    part = product(bld, bld.bswap(bld.vld("data", 0, hint="x"), hint="x"))
    for i, (p, n) in enumerate(zip(part, ("LO", "MI", "HI"))):
        bld.vst("sums", 16 * i, bld.xor(bld.vld("sums", 16 * i, hint=n), p, hint=n))

    red = Program("ghash_tail_reduce", LANE, (Memory("y", "bytes", 16, True), Memory("sums", "bytes", 48, False)),
                  lanes=2)
    bld = Builder(red)
    lo, mi, hi = (bld.vld("sums", 16 * i, hint=n) for i, n in enumerate(("LO", "MI", "HI")))
    bld.vst("y", 0, bld.bswap(_reduce(bld, lo, _middle(bld, lo, mi, hi, multiply), hi, reduction), hint="out"))
    return first, more, red


def tail_wide(width: int, multiply: str = "schoolbook", reduction: str = "shifts",
              packed: bool = False) -> tuple[Program, Program, Program]:
    """A tail of at least one whole vector (`width` blocks) in one reduction: `first`
    ((y ^ block 0) and the vector's other blocks times their powers, unreduced into
    `wsums`: the LO, MI or MD and HI vectors, 48 * width bytes) and `next` (each further
    vector's products added) take the whole vectors; `tail`'s next program takes the
    blocks after them into `sums` (48 bytes, zero before); `reduce` adds `sums` into
    block 0 of `wsums`, reduces every block and sums the blocks into y (the reduction is
    linear). The caller passes each vector's powers and, for Karatsuba with unpacked
    half sums, their half sums, as for `tail`."""
    _check_width(width, width)
    _check_choices(multiply, reduction)
    loads_half = multiply == "karatsuba" and not packed
    span = 16 * width
    mems = (Memory("wsums", "bytes", 3 * span, True), Memory("data", "bytes", span, False),
            Memory("power", "bytes", span, False)) + ((Memory("half", "bytes", span, False),) if loads_half else ())

    def product(bld: Builder, x: str) -> tuple[str, str, str]:
        h = bld.vld("power", 0, hint="h")
        return _block_product(bld, multiply, x, h, lambda: (bld.vld("half", 0, hint="hs") if loads_half
                                                            else _halves_sum(bld, h), 0x00))

    first = Program("ghash_tail_first_wide", LANE, (Memory("y", "bytes", 16, False),) + mems, lanes=2 * width)
    bld = Builder(first)
    acc = bld.bswap(bld.vld128("y", 0, hint="acc"), hint="acc")     # y into block 0 only
    x = bld.xor(bld.bswap(bld.vld("data", 0, hint="x"), hint="x"), acc, hint="x")
    for i, part in enumerate(product(bld, x)):
        bld.vst("wsums", span * i, part)

    more = Program("ghash_tail_next_wide", LANE, mems, lanes=2 * width)
    bld = Builder(more)
    part = product(bld, bld.bswap(bld.vld("data", 0, hint="x"), hint="x"))
    for i, (p, n) in enumerate(zip(part, ("LO", "MI", "HI"))):
        bld.vst("wsums", span * i, bld.xor(bld.vld("wsums", span * i, hint=n), p, hint=n))

    red = Program("ghash_tail_reduce_wide", LANE, (Memory("y", "bytes", 16, True), Memory("sums", "bytes", 48, False),
                                                   Memory("wsums", "bytes", 3 * span, False)), lanes=2 * width)
    bld = Builder(red)
    lo, mi, hi = (bld.xor(bld.vld("wsums", span * i, hint=n), bld.vld128("sums", 16 * i, hint=n), hint=n)
                  for i, n in enumerate(("LO", "MI", "HI")))
    r = _reduce(bld, lo, _middle(bld, lo, mi, hi, multiply), hi, reduction)
    while width > 1:     # sum the blocks' reduced results, as `update` does
        r = bld.xor(bld.shuffle("blocks", r, r, 0, hint="sum"), bld.shuffle("blocks", r, r, 1, hint="sum"), hint="sum")
        width //= 2
    bld.vst128("y", 0, bld.bswap(r, hint="out"))
    return first, more, red


def setkey(powers: int, name: str | None = None, multiply: str = "schoolbook", reduction: str = "shifts") -> Program:
    """htable = the twisted powers H^powers..H^1 of the hash key H, H^k at 16 * (powers - k),
    and for Karatsuba each power's half sum (in both words) 16 * powers further on
    (memory h: the block E_K(0), 16 bytes)."""
    _check_choices(multiply, reduction)
    prog = Program(name or f"ghash_setkey_x{powers}", LANE, (
        Memory("h", "bytes", 16, False), Memory("htable", "bytes", table_bytes(powers, multiply), True)), lanes=2)
    bld = Builder(prog)

    halves: dict[int, str] = {}

    def store(k: int, twisted: str) -> None:
        at = powers - k         # the table entry
        bld.vst("htable", 16 * at, twisted)
        if multiply != "karatsuba":
            return
        if not packed_halves(powers, multiply):
            bld.vst("htable", 16 * powers + 16 * at, _halves_sum(bld, twisted))
            return
        half = powers // 2      # entries at and at + half share a slot, made once both are
        halves[at] = _halves_sum(bld, twisted)
        if at < half:
            bld.vst("htable", 16 * powers + 16 * at,
                    bld.shuffle("unpacklo", halves.pop(at), halves.pop(at + half), LANE, hint="hs"))

    # The product of two twisted values is twisted (a x^-1 * b x^-1 * x, the product's
    # shift absorbing one x^-1), so twisted H^k = twisted H^ceil(k/2) * twisted
    # H^floor(k/2): one twist in all, and a chain of log2(powers) products instead of one
    # per power (the set-up runs once per key, and a key per message is how `openssl
    # speed -aead` and some products use GCM)
    h = bld.bswap(bld.vld("h", 0, hint="hkey"), hint="hkey")
    twisted = {1: _twist(bld, h)}
    store(1, twisted[1])
    for k in range(2, powers + 1):
        twisted[k] = _reduce(bld, *_product(bld, twisted[(k + 1) // 2], twisted[k // 2]), reduction)
        bld.note(f"H^{k}, twisted")
        store(k, twisted[k])
    return prog


def wide_setkey_fits(powers: int, width: int) -> bool:
    """Whether setkey_wide builds this table: vectors of 2 or 4 blocks, and the powers a
    power-of-two number of vectors (each doubling multiplies every vector so far by one
    broadcast power)."""
    vectors = powers // width
    return width in (2, 4) and powers % width == 0 and vectors & (vectors - 1) == 0


def setkey_wide(powers: int, width: int, multiply: str = "schoolbook", reduction: str = "shifts") -> Program:
    """The table of `setkey`, built `width` powers per vector: H^1..H^width in block 0
    (log-depth products, as setkey's), gathered into one vector (H^width in block 0, the
    table's order), then doublings: with the vectors so far covering H^1..H^m, each of
    them times H^m broadcast to every block gives H^(m+1)..H^2m. A 32-power zmm table
    takes 10 products (7 of them four blocks wide) instead of 31."""
    _check_choices(multiply, reduction)
    if not wide_setkey_fits(powers, width):
        raise ValueError(f"setkey_wide: {powers} powers do not make a power-of-two number of "
                         f"{width}-block vectors")
    prog = Program("ghash_powers_wide", LANE, (
        Memory("h", "bytes", 16, False), Memory("htable", "bytes", table_bytes(powers, multiply), True)),
        lanes=2 * width)
    bld = Builder(prog)

    def product(a: str, b: str) -> str:
        return _reduce(bld, *_product(bld, a, b), reduction)

    def gather(values: list[str]) -> str:
        """One vector of the values' blocks 0, the first in block 0."""
        while len(values) > 1:      # [a0, a2, b0, b2] (zmm) or [a0, b0] (ymm): pairs, then pairs of pairs
            values = [bld.shuffle("blocks", a, b, 0, hint="g") for a, b in zip(values[::2], values[1::2])]
        return values[0]

    def broadcast(v: str) -> str:
        """v's block 0 in every block."""
        for _ in range(width // 2):
            v = bld.shuffle("blocks", v, v, 0, hint="b")
        return v

    h = bld.bswap(bld.vld128("h", 0, hint="hkey"), hint="hkey")
    twisted = {1: _twist(bld, h)}          # twisted values are closed under products (setkey)
    for k in range(2, width + 1):
        twisted[k] = product(twisted[(k + 1) // 2], twisted[k // 2])
    vectors = [gather([twisted[k] for k in range(width, 0, -1)])]
    bld.note(f"H^{width}..H^1, twisted, one vector")
    while width * len(vectors) < powers:
        m = width * len(vectors)
        step = broadcast(vectors[-1])      # H^m: the last vector's block 0
        vectors += [product(v, step) for v in vectors]
        bld.note(f"H^{2 * m}..H^1, twisted")
    for j, v in enumerate(vectors):        # vector j: H^(width (j + 1))..H^(width j + 1)
        bld.vst("htable", 16 * (powers - width * (j + 1)), v)
    if multiply == "karatsuba":
        sums = [_halves_sum(bld, v) for v in vectors]
        for j, s in enumerate(sums):
            at = powers - width * (j + 1)
            if not packed_halves(powers, multiply):
                bld.vst("htable", 16 * powers + 16 * at, s)
            elif at < powers // 2:         # slot at: entry at's half sum low, entry at + powers/2's high
                partner = sums[j - powers // (2 * width)]
                bld.vst("htable", 16 * powers + 16 * at, bld.shuffle("unpacklo", s, partner, LANE, hint="hs"))
    return prog
