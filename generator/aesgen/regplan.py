"""Interleave factors and key-register policies for hardware AES loops (ISA-neutral).

A loop iteration takes N data vectors through rounds 0..Nr; round key i is read in round i
only. Registers hold the data (the whole iteration), loop-carried values such as a counter
or a chaining block (`aux`), short-lived temporaries of the final round (`temps`, e.g. the
last round key XORed with data), and round keys. The budget decides where keys live:

  resident   every round key in its own register, loaded once per call;
  borrow     keys resident, but temporaries live in the registers of keys that are not
             needed while they live, and those keys are reloaded after the temporaries
             die: the SPARC AES-256 schedule, generalised. Temporaries of the final round
             borrow the first rounds' keys; temporaries of the first round borrow the last
             rounds' keys; temporaries of every round (living at most from one round to
             the next) borrow the last rounds' keys until the first rounds are over, then
             the first rounds' keys;
  partial    the last P round keys resident, the others streamed;
  streamed   every round key loaded just before its round into rotating registers (two,
             or one where the core renames registers), or read as a memory operand where
             the ISA allows it.

A rolled loop (one round per trip of a round loop, `rolled=True`) reads its middle keys
from the schedule on each trip, so it has its own two:

  ends       round key 0 and the last resident, the middle keys streamed by the round
             loop;
  streamed   as above.

`plan` picks the first policy that fits (in that order) unless one is forced. The plan
says which register holds what; `KeyTracker` follows every register through the emitted
code so that an AES op can only be emitted against a register that holds its key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .errors import AesgenError

POLICIES = ("resident", "borrow", "partial", "streamed")
ROLLED_POLICIES = ("ends", "streamed")
ROLLED_KEY_REGISTERS = 3   # a round loop holds k0, kNr and the loop's key, whatever the key size


def key_registers(need: "Need", rolled: bool) -> int:
    """Registers the round keys take at most: every key, or a round loop's three."""
    return ROLLED_KEY_REGISTERS if rolled else need.keys
ROTATING = 2   # registers streamed keys pass through: one in use, the next one loading


class PlanError(AesgenError):
    pass


def default_interleave(latency: int, issue_per_cycle: int, independent_ops: int = 1) -> int:
    """Blocks in flight that cover the latency at full issue rate, when each block offers
    `independent_ops` AES ops per round."""
    return max(1, math.ceil(latency * issue_per_cycle / independent_ops))


@dataclass(frozen=True)
class Need:
    data: int      # data vectors per iteration
    aux: int       # loop-carried values other than keys
    temps: int     # temporaries (reused across the data vectors)
    keys: int      # round keys, Nr + 1
    temp_phase: str = "final"   # temporaries live in the final round, "initial" (before round 1),
                                # "rounds" (in every round, each from one round to the next),
                                # or "all" (every round: nothing to borrow from)
    first_key: int = 0          # the round whose key is key 0 here (1 when k0 lives elsewhere)

    def __str__(self) -> str:
        return (f"{self.data} data, {self.aux} loop-carried, {self.temps} temporaries "
                f"({self.temp_phase}), {self.keys} round keys")


@dataclass
class Plan:
    policy: str
    registers: int
    need: Need
    data: list[int]
    aux: list[int]
    temps: list[int]
    resident: dict[int, int]              # round -> register
    rotating: list[int] = field(default_factory=list)
    borrowed: dict[int, int] = field(default_factory=dict)   # temp index -> round it borrows
    # temp_phase "rounds": until round borrowed[t] is over, temp t lives in the registers of
    # round borrowed_ahead[t] (a last round) instead, at temps_ahead[t]
    borrowed_ahead: dict[int, int] = field(default_factory=dict)
    temps_ahead: list[int] = field(default_factory=list)
    memory_operands: bool = False         # streamed keys read straight from memory
    key_width: int = 1                    # registers per round key
    rolled: bool = False                  # the middle rounds are a loop (ROLLED_POLICIES)
    note: str = ""

    def streamed(self, rnd: int) -> bool:
        return rnd not in self.resident

    def used(self) -> int:
        keys = {r + i for r in list(self.resident.values()) + self.rotating for i in range(self.key_width)}
        return len(set(self.data) | set(self.aux) | set(self.temps) | keys)

    def through(self) -> str:
        n = len(self.rotating)
        return "one rotating register" if n == 1 else f"{n} rotating registers"

    def describe(self) -> str:
        n, first = self.need.keys, self.need.first_key
        k = lambda r: f"k{r + first}"
        every = f"all {n} round keys" if not first else f"round keys {k(0)}..{k(n - 1)} all"
        if self.policy == "resident":
            keys = f"{every} resident"
        elif self.policy == "borrow":
            names = lambda rs: ", ".join(k(r) for r in sorted(set(rs)))
            rounds = names(self.borrowed.values())
            if self.need.temp_phase == "rounds":
                keys = (f"{every} resident; temporaries borrow the registers of "
                        f"{names(self.borrowed_ahead.values())} until "
                        f"{rounds} {'is' if len(set(self.borrowed.values())) == 1 else 'are'} spent, then those of "
                        f"{rounds}; each lender is reloaded after its last borrower dies")
            else:
                when = "the final round's" if self.need.temp_phase == "final" else "the first round's"
                keys = (f"{every} resident; {when} temporaries borrow the registers of "
                        f"{rounds}, which are reloaded after their last use")
        elif self.policy == "ends":
            via = "read as memory operands" if self.memory_operands else f"through {self.through()}"
            # the same text for every key size: a rolled loop's functions are shared
            keys = f"round keys k0 and kNr resident, the middle ones streamed by the round loop {via}"
        elif self.policy == "partial":
            res = sorted(self.resident)
            via = "read as memory operands" if self.memory_operands else f"streamed through {self.through()}"
            rest = n - len(res)
            keys = (f"round keys {k(res[0])}..{k(res[-1])} resident, "
                    f"{'the other one' if rest == 1 else f'the other {rest}'} {via}")
        else:
            keys = ("every round key read as a memory operand" if self.memory_operands else
                    f"every round key streamed through {self.through()}")
            if self.rolled:
                keys += ", the middle ones by the round loop"
        temps = len(self.temps)
        text = (f"{self.policy}: {keys}; {len(self.data)} data, {len(self.aux)} loop-carried, "
                f"{temps} {'temporary' if temps == 1 else 'temporaries'}; {self.used()} of {self.registers} registers")
        return text + (f" ({self.note})" if self.note else "")


def plan(need: Need, registers: int, policy: str = "auto", memory_operands: bool = False,
         key_width: int = 1, rotating: int = ROTATING, rolled: bool = False) -> Plan:
    """Assign registers 0..registers-1. memory_operands: the ISA can take a 16-byte round
    key straight from memory, so streaming needs no rotating registers. key_width: how
    many registers one round key fills (2 for 64-bit scalar ISAs); a key's registers are
    resident[round] .. resident[round] + key_width - 1. rotating: the registers streamed
    keys pass through (1 where the core renames registers, so that the next key's load
    does not wait for the last read of the one before). rolled: the middle rounds are a
    round loop, which streams their keys (ROLLED_POLICIES; a rolled loop takes the
    policy "auto" only)."""
    if rolled:
        return _rolled_plan(need, registers, policy, memory_operands, key_width, rotating)
    if policy not in POLICIES + ("auto",):
        raise PlanError(f"unknown key policy {policy!r} (one of {', '.join(POLICIES)}, auto)")
    kw = key_width
    base = need.data + need.aux
    rot = 0 if memory_operands else rotating * kw
    lenders = -(-need.temps // kw)     # keys whose registers the temporaries fill
    fits = {
        "resident": base + need.temps + need.keys * kw <= registers,
        "borrow": (need.temps > 0 and need.temp_phase != "all" and base + need.keys * kw <= registers
                   and (lenders if need.temp_phase != "rounds" else 2 * lenders) <= need.keys - 2),
        "partial": base + need.temps + rot + kw <= registers,
        "streamed": base + need.temps + rot <= registers,
    }
    note = ""
    if policy == "auto":
        chosen = next((p for p in POLICIES if fits[p]), None)
        if chosen is None:
            raise PlanError(f"{registers} registers cannot hold {need.data} data registers, {need.aux} "
                            f"loop-carried values and {need.temps} temporaries even with streamed keys")
    else:
        chosen = policy
        if chosen == "borrow" and need.temps == 0:
            chosen, note = "resident", "forced borrow: this loop has no temporaries to place"
        if not fits[chosen]:
            raise PlanError(f"policy {policy} does not fit: {registers} registers for {need}")
    regs = iter(range(registers))
    take = lambda n: [next(regs) for _ in range(n)]
    data = take(need.data)
    aux = take(need.aux)
    if chosen == "resident":
        temps = take(need.temps)
        return Plan(chosen, registers, need, data, aux, temps,
                    {r: take(kw)[0] for r in range(need.keys)}, key_width=kw, note=note)
    if chosen == "borrow":
        resident = {r: take(kw)[0] for r in range(need.keys)}
        early = list(range(need.keys))                 # rounds over soonest first
        late = list(range(need.keys - 1, -1, -1))      # rounds still to come longest first
        if need.temp_phase == "final":
            # the earliest rounds' keys are dead by the final round; k0 last, since it is
            # also the first key the next iteration needs
            order = early[1:-1] + [0]
        elif need.temp_phase == "initial":
            # before round 1 the last rounds' keys are not needed yet
            order = late[:-2]
        else:
            order = early
        borrowed = {t: order[t // kw] for t in range(need.temps)}
        temps = [resident[borrowed[t]] + t % kw for t in range(need.temps)]
        ahead: dict[int, int] = {}
        if need.temp_phase == "rounds":
            ahead = {t: late[t // kw] for t in range(need.temps)}
        return Plan(chosen, registers, need, data, aux, temps, resident, borrowed=borrowed,
                    borrowed_ahead=ahead, temps_ahead=[resident[ahead[t]] + t % kw for t in ahead],
                    key_width=kw, note=note)
    temps = take(need.temps)
    rotating = [take(kw)[0] for _ in range(rot // kw)] if rot else []
    if chosen == "partial":
        count = min((registers - (base + need.temps + rot)) // kw, need.keys - 1)
        resident = {r: take(kw)[0] for r in range(need.keys - count, need.keys)}
        return Plan(chosen, registers, need, data, aux, temps, resident, rotating,
                    memory_operands=memory_operands, key_width=kw, note=note)
    return Plan(chosen, registers, need, data, aux, temps, {}, rotating, memory_operands=memory_operands,
                key_width=kw, note=note)


class KeyTracker:
    """What every register holds, as the emitter writes code: ("key", i), or a free-form
    tag for anything else. `require` is called before each AES op."""

    def __init__(self):
        self.holds: dict[int, object] = {}

    def load_key(self, reg: int, rnd: int) -> None:
        self.holds[reg] = ("key", rnd)

    def clobber(self, reg: int, what: object = "data") -> None:
        self.holds[reg] = what

    def require(self, reg: int, rnd: int) -> None:
        if self.holds.get(reg) != ("key", rnd):
            raise PlanError(f"register {reg} holds {self.holds.get(reg)!r}, not round key {rnd}")

    def keys(self) -> dict[int, int]:
        return {reg: h[1] for reg, h in self.holds.items() if isinstance(h, tuple) and h[0] == "key"}

    def snapshot(self) -> dict[int, object]:
        return dict(self.holds)


def _rolled_plan(need: Need, registers: int, policy: str, memory_operands: bool, key_width: int,
                 rotating: int) -> Plan:
    """The plan of a rolled loop: k0 and the last key resident where they fit, else every
    key streamed; the round loop reads the middle keys through the first rotating register
    (or as memory operands)."""
    if policy != "auto":
        raise PlanError(f"a rolled loop places its keys itself: key policy {policy!r} is for unrolled loops")
    kw = key_width
    base = need.data + need.aux + need.temps
    rot = 0 if memory_operands else rotating * kw
    if base + rot > registers:
        raise PlanError(f"{registers} registers cannot hold {need.data} data registers, {need.aux} "
                        f"loop-carried values and {need.temps} temporaries even with streamed keys")
    ends = base + rot + 2 * kw <= registers and need.keys > 2
    regs = iter(range(registers))
    take = lambda n: [next(regs) for _ in range(n)]
    data, aux, temps = take(need.data), take(need.aux), take(need.temps)
    rotating_regs = [take(kw)[0] for _ in range(rot // kw)] if rot else []
    resident = {r: take(kw)[0] for r in (0, need.keys - 1)} if ends else {}
    return Plan("ends" if ends else "streamed", registers, need, data, aux, temps, resident, rotating_regs,
                memory_operands=memory_operands, key_width=kw, rolled=True)
