/* A stand-in for Windows' bcryptprimitives.dll, for running the release's Windows
 * binaries under wine 8 (Debian 12), which has no such DLL. Rust's standard library
 * (>= 1.78) takes its random bytes (HashMap seeds) from bcryptprimitives' ProcessPrng
 * and imports it at load time, so without this no Rust .exe or .dll starts there.
 * ProcessPrng is RtlGenRandom (advapi32's SystemFunction036) here, which wine has.
 *
 * Test-only: scripts/release/verify.sh builds it with mingw into a temporary directory
 * and puts it on WINEPATH, with WINEDLLOVERRIDES=bcryptprimitives=n, for the wine run
 * alone. It is never in a release directory or archive; real Windows has the DLL. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  /* RtlGenRandom takes a ULONG length; ProcessPrng a SIZE_T. */
  while (length > 0) {
    ULONG chunk = length > 0x40000000u ? 0x40000000u : (ULONG)length;
    if (!SystemFunction036(data, chunk)) {
      return FALSE;
    }
    data += chunk;
    length -= chunk;
  }
  return TRUE;
}
