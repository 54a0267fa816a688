/* NSPA Win32 layer: the x86_64 exception structures of winnt.h — CONTEXT (the SDK's
 * layout, 1232 bytes), EXCEPTION_RECORD, EXCEPTION_POINTERS — and the exception codes. */
#ifndef NSPA_WIN32_WINNT_EXCEPT_H
#define NSPA_WIN32_WINNT_EXCEPT_H

#include "windef.h"
#include "ntstatus.h"

#ifdef __cplusplus
extern "C" {
#endif

#define EXCEPTION_NONCONTINUABLE     0x01u
#define EXCEPTION_UNWINDING          0x02u
#define EXCEPTION_EXIT_UNWIND        0x04u
#define EXCEPTION_NESTED_CALL        0x10u
#define EXCEPTION_MAXIMUM_PARAMETERS 15

#define EXCEPTION_EXECUTE_HANDLER    1
#define EXCEPTION_CONTINUE_SEARCH    0
#define EXCEPTION_CONTINUE_EXECUTION (-1)

#define EXCEPTION_ACCESS_VIOLATION          ((DWORD)STATUS_ACCESS_VIOLATION)
#define EXCEPTION_DATATYPE_MISALIGNMENT     ((DWORD)STATUS_DATATYPE_MISALIGNMENT)
#define EXCEPTION_BREAKPOINT                ((DWORD)STATUS_BREAKPOINT)
#define EXCEPTION_SINGLE_STEP               ((DWORD)STATUS_SINGLE_STEP)
#define EXCEPTION_ARRAY_BOUNDS_EXCEEDED     ((DWORD)STATUS_ARRAY_BOUNDS_EXCEEDED)
#define EXCEPTION_FLT_DENORMAL_OPERAND      ((DWORD)STATUS_FLOAT_DENORMAL_OPERAND)
#define EXCEPTION_FLT_DIVIDE_BY_ZERO        ((DWORD)STATUS_FLOAT_DIVIDE_BY_ZERO)
#define EXCEPTION_FLT_INEXACT_RESULT        ((DWORD)STATUS_FLOAT_INEXACT_RESULT)
#define EXCEPTION_FLT_INVALID_OPERATION     ((DWORD)STATUS_FLOAT_INVALID_OPERATION)
#define EXCEPTION_FLT_OVERFLOW              ((DWORD)STATUS_FLOAT_OVERFLOW)
#define EXCEPTION_FLT_STACK_CHECK           ((DWORD)STATUS_FLOAT_STACK_CHECK)
#define EXCEPTION_FLT_UNDERFLOW             ((DWORD)STATUS_FLOAT_UNDERFLOW)
#define EXCEPTION_INT_DIVIDE_BY_ZERO        ((DWORD)STATUS_INTEGER_DIVIDE_BY_ZERO)
#define EXCEPTION_INT_OVERFLOW              ((DWORD)STATUS_INTEGER_OVERFLOW)
#define EXCEPTION_PRIV_INSTRUCTION          ((DWORD)STATUS_PRIVILEGED_INSTRUCTION)
#define EXCEPTION_IN_PAGE_ERROR             ((DWORD)STATUS_IN_PAGE_ERROR)
#define EXCEPTION_ILLEGAL_INSTRUCTION       ((DWORD)STATUS_ILLEGAL_INSTRUCTION)
#define EXCEPTION_NONCONTINUABLE_EXCEPTION  ((DWORD)STATUS_NONCONTINUABLE_EXCEPTION)
#define EXCEPTION_STACK_OVERFLOW            ((DWORD)STATUS_STACK_OVERFLOW)
#define EXCEPTION_INVALID_DISPOSITION       ((DWORD)STATUS_INVALID_DISPOSITION)
#define EXCEPTION_GUARD_PAGE                ((DWORD)STATUS_GUARD_PAGE_VIOLATION)
#define EXCEPTION_INVALID_HANDLE            ((DWORD)STATUS_INVALID_HANDLE)

#define CONTEXT_AMD64           0x00100000u
#define CONTEXT_CONTROL         (CONTEXT_AMD64 | 0x1u)
#define CONTEXT_INTEGER         (CONTEXT_AMD64 | 0x2u)
#define CONTEXT_SEGMENTS        (CONTEXT_AMD64 | 0x4u)
#define CONTEXT_FLOATING_POINT  (CONTEXT_AMD64 | 0x8u)
#define CONTEXT_DEBUG_REGISTERS (CONTEXT_AMD64 | 0x10u)
#define CONTEXT_FULL            (CONTEXT_CONTROL | CONTEXT_INTEGER | CONTEXT_FLOATING_POINT)
#define CONTEXT_ALL             (CONTEXT_FULL | CONTEXT_SEGMENTS | CONTEXT_DEBUG_REGISTERS)

typedef struct DECLSPEC_ALIGN(16) _M128A { ULONGLONG Low; LONGLONG High; } M128A, *PM128A;

typedef struct DECLSPEC_ALIGN(16) _XSAVE_FORMAT {
    WORD  ControlWord;
    WORD  StatusWord;
    BYTE  TagWord;
    BYTE  Reserved1;
    WORD  ErrorOpcode;
    DWORD ErrorOffset;
    WORD  ErrorSelector;
    WORD  Reserved2;
    DWORD DataOffset;
    WORD  DataSelector;
    WORD  Reserved3;
    DWORD MxCsr;
    DWORD MxCsr_Mask;
    M128A FloatRegisters[8];
    M128A XmmRegisters[16];
    BYTE  Reserved4[96];
} XSAVE_FORMAT, *PXSAVE_FORMAT, XMM_SAVE_AREA32, *PXMM_SAVE_AREA32;

typedef struct DECLSPEC_ALIGN(16) _CONTEXT {
    DWORD64 P1Home, P2Home, P3Home, P4Home, P5Home, P6Home;
    DWORD   ContextFlags;
    DWORD   MxCsr;
    WORD    SegCs, SegDs, SegEs, SegFs, SegGs, SegSs;
    DWORD   EFlags;
    DWORD64 Dr0, Dr1, Dr2, Dr3, Dr6, Dr7;
    DWORD64 Rax, Rcx, Rdx, Rbx, Rsp, Rbp, Rsi, Rdi;
    DWORD64 R8, R9, R10, R11, R12, R13, R14, R15;
    DWORD64 Rip;
    union {
        XMM_SAVE_AREA32 FltSave;
        struct {
            M128A Header[2];
            M128A Legacy[8];
            M128A Xmm0, Xmm1, Xmm2, Xmm3, Xmm4, Xmm5, Xmm6, Xmm7;
            M128A Xmm8, Xmm9, Xmm10, Xmm11, Xmm12, Xmm13, Xmm14, Xmm15;
        };
    };
    M128A   VectorRegister[26];
    DWORD64 VectorControl;
    DWORD64 DebugControl;
    DWORD64 LastBranchToRip;
    DWORD64 LastBranchFromRip;
    DWORD64 LastExceptionToRip;
    DWORD64 LastExceptionFromRip;
} CONTEXT, *PCONTEXT;
#ifdef __cplusplus
static_assert(sizeof(CONTEXT) == 1232, "CONTEXT has the SDK's x86_64 size");
static_assert(__builtin_offsetof(CONTEXT, Rip) == 0xf8, "CONTEXT.Rip at the SDK's offset");
#else
_Static_assert(sizeof(CONTEXT) == 1232, "CONTEXT has the SDK's x86_64 size");
_Static_assert(__builtin_offsetof(CONTEXT, Rip) == 0xf8, "CONTEXT.Rip at the SDK's offset");
#endif

typedef struct _EXCEPTION_RECORD {
    DWORD    ExceptionCode;
    DWORD    ExceptionFlags;
    struct _EXCEPTION_RECORD *ExceptionRecord;
    PVOID    ExceptionAddress;
    DWORD    NumberParameters;
    ULONG_PTR ExceptionInformation[EXCEPTION_MAXIMUM_PARAMETERS];
} EXCEPTION_RECORD, *PEXCEPTION_RECORD;

typedef struct _EXCEPTION_POINTERS {
    PEXCEPTION_RECORD ExceptionRecord;
    PCONTEXT          ContextRecord;
} EXCEPTION_POINTERS, *PEXCEPTION_POINTERS, *LPEXCEPTION_POINTERS;

typedef LONG (CALLBACK *PVECTORED_EXCEPTION_HANDLER)(struct _EXCEPTION_POINTERS *info);
typedef LONG (WINAPI *PTOP_LEVEL_EXCEPTION_FILTER)(struct _EXCEPTION_POINTERS *info);
typedef PTOP_LEVEL_EXCEPTION_FILTER LPTOP_LEVEL_EXCEPTION_FILTER;

#ifdef __cplusplus
}
#endif
#endif
