/*
 * t4emu_probe(const uint64_t in[4], uint64_t out[22]) -- every T4 and VIS3 opcode form the
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
 *   out[15..21] xmulx/xmulxhi (lo/hi of the carry-less product), each operand in turn
 *              in %l, %i, %o and %g, with rd = rs2 and rd = rs1 once each:
 *     15  lo(x * k)          xmulx   %l1, %i2, %o3
 *     16  hi(x * k)          xmulxhi %l1, %i2, %i4
 *     17  hi(out15 * out16)  xmulxhi %o3, %i4, %g5
 *     18  lo(out17 * x)      xmulx   %g5, %l1, %l3
 *     19  lo(hi * k)         xmulx   %g4, %i2, %i2   (%g4 = hi; rd = rs2)
 *     20  hi(hi * out18)     xmulxhi %g4, %l3, %g4   (rd = rs1)
 *     21  lo(x * 0)          xmulx   %l1, %g0, %o5
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
	ldx [%i0+24], %l1
	ldx [%i0], %i2
	ldx [%i0+8], %g4
	xmulx %l1, %i2, %o3
	xmulxhi %l1, %i2, %i4
	xmulxhi %o3, %i4, %g5
	xmulx %g5, %l1, %l3
	xmulx %g4, %i2, %i2
	xmulxhi %g4, %l3, %g4
	xmulx %l1, %g0, %o5
	stx %o3, [%i1+120]
	stx %i4, [%i1+128]
	stx %g5, [%i1+136]
	stx %l3, [%i1+144]
	stx %i2, [%i1+152]
	stx %g4, [%i1+160]
	stx %o5, [%i1+168]
	ret
	restore
	.size t4emu_probe, .-t4emu_probe

#endif

#if defined(__ELF__)
	.section .note.GNU-stack,"",@progbits
#endif
