"""Machine models: per ISA, the instructions aesgen emits, each with one meaning (what the
model executes) and one spelling (what the assembler reads)."""
