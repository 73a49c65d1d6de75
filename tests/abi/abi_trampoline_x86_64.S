/*
 * aesgen_abi_call(fn, args[6], after[8]): call fn(args...) with known values in
 * every callee-saved register (SysV x86-64: rbx, rbp, r12-r15) and a 16-byte
 * aligned stack; store what those registers, rsp and the direction flag hold
 * after the call into after[] for the C side to compare.
 */
#if defined(__x86_64__) && defined(__ELF__)
	.text
	.globl aesgen_abi_call
	.type aesgen_abi_call, @function
aesgen_abi_call:
	.cfi_startproc
	endbr64
	pushq %rbx
	pushq %rbp
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	subq $24, %rsp              /* rsp is now 16-byte aligned */
	movq %rdi, 0(%rsp)           /* fn */
	movq %rdx, 8(%rsp)           /* after */
	movq %rsi, %r11
	movabsq $0x1111111111111111, %rbx
	movabsq $0x2222222222222222, %rbp
	movabsq $0x3333333333333333, %r12
	movabsq $0x4444444444444444, %r13
	movabsq $0x5555555555555555, %r14
	movabsq $0x6666666666666666, %r15
	movq 0(%r11), %rdi
	movq 8(%r11), %rsi
	movq 16(%r11), %rdx
	movq 24(%r11), %rcx
	movq 32(%r11), %r8
	movq 40(%r11), %r9
	leaq 0(%rsp), %rax
	movq %rax, 16(%rsp)          /* rsp before the call */
	call *0(%rsp)
	movq 8(%rsp), %rax
	movq %rbx, 0(%rax)
	movq %rbp, 8(%rax)
	movq %r12, 16(%rax)
	movq %r13, 24(%rax)
	movq %r14, 32(%rax)
	movq %r15, 40(%rax)
	leaq 0(%rsp), %rcx
	subq 16(%rsp), %rcx          /* 0 if rsp came back unchanged */
	movq %rcx, 48(%rax)
	pushfq
	popq %rcx
	andq $0x400, %rcx            /* the direction flag must be clear */
	movq %rcx, 56(%rax)
	addq $24, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbp
	popq %rbx
	ret
	.cfi_endproc
	.size aesgen_abi_call, .-aesgen_abi_call
#endif
#if defined(__ELF__)
	.section .note.GNU-stack,"",@progbits
#endif
