/* Wine 8 lacks ProcessPrng (bcryptprimitives.dll), which Rust's standard library calls for
   random bytes: this forwards it to advapi32's RtlGenRandom (SystemFunction036). */
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x7fffffff ? 0x7fffffff : (ULONG)len;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
