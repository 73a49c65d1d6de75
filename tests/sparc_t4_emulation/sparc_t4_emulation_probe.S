/*
 * t4emu_probe(const uint64_t in[4], uint64_t out[15]) -- every T4 opcode form the
 * emulator knows, as GNU as encodes it, for the start-up check in
 * sparc_t4_emulation_emulator.c (which rewrites these words like the generated ones).
 *
 *   in:  k, hi, lo, x
 *   out[0..7]  the eight AES round forms (op5 0..7) of k, hi, lo
 *   out[8]     aes_eround01 with the destination equal to the hi source
 *   out[9]     aes_dround23 with the destination equal to the lo source
 *   out[10]    x through movxtod/movdtox via %l5, %i5, %o3 and %g1
 *   out[11]    movxtod %g0 (zero)
 *   out[12..14] aes_kexpand1 (rcon index 7), aes_kexpand0, aes_kexpand2 of k, hi
 *
 * Operands sit in both FP banks: %f32-%f62 set the odd low bit of the 5-bit
 * register field, which is what a wrong decoder gets wrong.
 */
#if defined(__sparc__) && defined(__arch64__) && defined(__ELF__)

	.text
	.globl t4emu_probe
	.type t4emu_probe, #function
	.p2align 5
t4emu_probe:
	save %sp, -192, %sp
	ldd [%i0], %f62
	ldd [%i0+8], %f32
	ldd [%i0+16], %f14
	aes_eround01 %f62, %f32, %f14, %f0
	aes_eround23 %f62, %f32, %f14, %f2
	aes_dround01 %f62, %f32, %f14, %f4
	aes_dround23 %f62, %f32, %f14, %f36
	aes_eround01_l %f62, %f32, %f14, %f40
	aes_eround23_l %f62, %f32, %f14, %f46
	aes_dround01_l %f62, %f32, %f14, %f58
	aes_dround23_l %f62, %f32, %f14, %f60
	std %f0, [%i1]
	std %f2, [%i1+8]
	std %f4, [%i1+16]
	std %f36, [%i1+24]
	std %f40, [%i1+32]
	std %f46, [%i1+40]
	std %f58, [%i1+48]
	std %f60, [%i1+56]
	ldd [%i0+8], %f20
	aes_eround01 %f62, %f20, %f14, %f20
	std %f20, [%i1+64]
	ldd [%i0+16], %f22
	aes_dround23 %f62, %f32, %f22, %f22
	std %f22, [%i1+72]
	ldx [%i0+24], %l5
	movxtod %l5, %f48
	movdtox %f48, %i5
	movxtod %i5, %f50
	movdtox %f50, %o3
	movxtod %o3, %f52
	movdtox %f52, %g1
	stx %g1, [%i1+80]
	ldd [%i0], %f54
	movxtod %g0, %f54
	std %f54, [%i1+88]
	ldd [%i0], %f34
	ldd [%i0+8], %f62
	aes_kexpand1 %f34, %f62, 7, %f38
	aes_kexpand0 %f34, %f62, %f42
	aes_kexpand2 %f34, %f62, %f56
	std %f38, [%i1+96]
	std %f42, [%i1+104]
	std %f56, [%i1+112]
	ret
	restore
	.size t4emu_probe, .-t4emu_probe

#endif

#if defined(__ELF__)
	.section .note.GNU-stack,"",@progbits
#endif
