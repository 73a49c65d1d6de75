"""The CPU features dispatch knows, stated once. The generator writes the C header the
runtime and every variant include from this table (generated/cpu_features.h: the
AESGEN_CPU_* bits and their names); emitters and target descriptions may name only
these features, and every C mask is spelled by `c_mask`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Feature:
    name: str      # as target descriptions, AESGEN_CPU_DISABLE and the configure probe spell it
    what: str      # what cpu.c checks for it

    @property
    def macro(self) -> str:
        return f"AESGEN_CPU_{self.name.upper()}"


# The order fixes the bits: never reorder, only append.
FEATURES = (
    Feature("aesni", "x86-64 AES-NI"),
    Feature("ssse3", "x86-64 SSSE3 (pshufb)"),
    Feature("avx", "x86-64 AVX, and OS-enabled ymm state"),
    Feature("avx2", "x86-64 AVX2"),
    Feature("vaes", "x86-64 VAES"),
    Feature("avx512f", "x86-64 AVX-512F, and OS-enabled zmm and opmask state"),
    Feature("avx512vl", "x86-64 AVX-512VL"),
    Feature("avx512bw", "x86-64 AVX-512BW"),
    Feature("arm_aes", "AArch64 AESE/AESD/AESMC/AESIMC (HWCAP_AES)"),
    Feature("ppc_vcrypto", "POWER8 vcipher/vncipher and vpmsumd (PPC_FEATURE2_VEC_CRYPTO)"),
    Feature("rv_zkne", "RISC-V scalar AES encryption"),
    Feature("rv_zknd", "RISC-V scalar AES decryption"),
    Feature("sparc_aes", "SPARC T4 AES opcodes (HWCAP crypto and the CFR AES bit)"),
    Feature("neon", "32-bit ARM Advanced SIMD (HWCAP_NEON); AArch64 always has it"),
    Feature("pclmul", "x86-64 PCLMULQDQ (carry-less multiply)"),
    Feature("arm_pmull", "AArch64 PMULL/PMULL2 on 64-bit polynomials (HWCAP_PMULL)"),
    Feature("vpclmulqdq", "x86-64 VPCLMULQDQ (carry-less multiply on ymm and zmm)"),
    Feature("rv_clmul", "RISC-V scalar carry-less multiply, clmul and clmulh (Zbc or Zbkc)"),
    Feature("sparc_vis3", "SPARC VIS3: xmulx, xmulxhi (HWCAP_SPARC_VIS3)"),
)
BY_NAME = {f.name: f for f in FEATURES}
NONE = "AESGEN_CPU_NONE"


def c_mask(names) -> str:
    """The C expression of a feature mask, e.g. AESGEN_CPU_AVX | AESGEN_CPU_AVX2."""
    return " | ".join(BY_NAME[n].macro for n in names) or NONE


def header_context() -> dict:
    return {"features": [{"name": f.name, "macro": f.macro, "bit": i, "what": f.what}
                         for i, f in enumerate(FEATURES)], "none_macro": NONE}
