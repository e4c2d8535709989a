#include "textflag.h"

// func callerFP() unsafe.Pointer
//
// A frameless function: BP still holds its caller's frame pointer.
TEXT ·callerFP(SB),NOSPLIT,$0-8
	MOVQ BP, ret+0(FP)
	RET
