#include "textflag.h"

// Byte i of a 4-pixel run's result is byte shuf[i] of its RGBA bytes
// (0xff: zero).
DATA shuf<>+0(SB)/8, $0x0908060504020100
DATA shuf<>+8(SB)/8, $0xffffffff0e0d0c0a
GLOBL shuf<>(SB), RODATA|NOPTR, $16

// func rgbaToRGB4(dst, src *byte, n int)
TEXT ·rgbaToRGB4(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVOU shuf<>(SB), X4
	CMPQ CX, $4
	JLT  one
four:
	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	PSHUFB X4, X0
	PSHUFB X4, X1
	PSHUFB X4, X2
	PSHUFB X4, X3
	MOVOU X0, 0(DI)
	MOVOU X1, 12(DI)
	MOVOU X2, 24(DI)
	MOVOU X3, 36(DI)
	ADDQ $64, SI
	ADDQ $48, DI
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  four
one:
	TESTQ CX, CX
	JZ    done
	MOVOU (SI), X0
	PSHUFB X4, X0
	MOVOU X0, (DI)
	ADDQ $16, SI
	ADDQ $12, DI
	DECQ CX
	JMP  one
done:
	RET
