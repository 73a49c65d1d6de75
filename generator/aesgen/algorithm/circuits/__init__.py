"""Boolean circuits for the AES S-box and its inverse, kept as data (`*.slp`).

A circuit file lists `inputs`, `outputs` and gates `a = b ^ c`, `a = b & c`,
`a = b xnor c`. Loading a circuit checks it over all 256 inputs against the reference
S-box, so a mistyped gate stops the generator before anything is emitted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ... import reference
from ...errors import AesgenError

_DIR = Path(__file__).resolve().parent
_GATE = re.compile(r"^(\w+) = (\w+) (\^|&|xnor) (\w+)$")

# name -> (file, function of x the circuit must compute when XNOR is read as XOR)
CIRCUITS = {
    "bp113": ("sbox_bp113.slp", lambda x: reference.SBOX[x] ^ 0x63),
    "cmt121": ("inv_sbox_cmt121.slp", lambda y: reference.INV_SBOX[y ^ 0x63]),
}
FORWARD = ("bp113",)
INVERSE = ("cmt121",)


class CircuitError(AesgenError):
    pass


@dataclass(frozen=True)
class Circuit:
    name: str
    inputs: tuple[str, ...]    # most significant bit first
    outputs: tuple[str, ...]   # most significant bit first
    gates: tuple[tuple[str, str, str, str], ...]   # (dst, op, a, b), op in ^ & xnor

    @property
    def and_count(self) -> int:
        return sum(1 for g in self.gates if g[1] == "&")

    def evaluate(self, x: int, fold_constants: bool = True) -> int:
        """The output byte for input byte x (XNOR read as XOR when fold_constants)."""
        v = {name: (x >> (7 - i)) & 1 for i, name in enumerate(self.inputs)}
        for dst, op, a, b in self.gates:
            if op == "&":
                v[dst] = v[a] & v[b]
            else:
                v[dst] = v[a] ^ v[b] ^ (1 if op == "xnor" and not fold_constants else 0)
        return sum(v[name] << (7 - i) for i, name in enumerate(self.outputs))

    def apply(self, builder, bits_lsb_first: list, hint: str = "") -> list:
        """Emit the circuit on eight bit-slice values (slice k = bit k) through an
        ir.Builder; XNOR is emitted as XOR (the constant lives in the round keys)."""
        names = {name: bits_lsb_first[7 - i] for i, name in enumerate(self.inputs)}
        for dst, op, a, b in self.gates:
            emit = builder.and_ if op == "&" else builder.xor
            names[dst] = emit(names[a], names[b], hint=f"{hint}{dst}")
        return [names[self.outputs[7 - k]] for k in range(8)]


def parse(name: str, text: str) -> Circuit:
    inputs = outputs = None
    gates = []
    defined: set[str] = set()
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"circuit {name} line {lineno}"
        words = line.split()
        if words[0] in ("inputs", "outputs"):
            if len(words) != 9:
                raise CircuitError(f"{where}: '{words[0]}' needs 8 names")
            if words[0] == "inputs":
                inputs = tuple(words[1:])
                defined.update(inputs)
            else:
                outputs = tuple(words[1:])
            continue
        m = _GATE.match(line)
        if not m:
            raise CircuitError(f"{where}: cannot parse '{line}'")
        dst, a, op, b = m.groups()
        for operand in (a, b):
            if operand not in defined:
                raise CircuitError(f"{where}: '{operand}' used before it is defined")
        if dst in defined:
            raise CircuitError(f"{where}: '{dst}' defined twice")
        defined.add(dst)
        gates.append((dst, op, a, b))
    if inputs is None or outputs is None:
        raise CircuitError(f"circuit {name}: missing inputs or outputs line")
    missing = [o for o in outputs if o not in defined]
    if missing:
        raise CircuitError(f"circuit {name}: outputs never computed: {' '.join(missing)}")
    return Circuit(name, inputs, outputs, tuple(gates))


@lru_cache(maxsize=None)
def load(name: str) -> Circuit:
    """Load and verify a circuit by name over all 256 inputs."""
    if name not in CIRCUITS:
        raise CircuitError(f"unknown circuit '{name}' (known: {', '.join(sorted(CIRCUITS))})")
    filename, want = CIRCUITS[name]
    circuit = parse(name, (_DIR / filename).read_text())
    for x in range(256):
        got = circuit.evaluate(x)
        if got != want(x):
            raise CircuitError(
                f"circuit {name} ({filename}) is wrong: input {x:#04x} gives {got:#04x}, "
                f"expected {want(x):#04x}")
    return circuit
