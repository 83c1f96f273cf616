/*
 * A stand-in for bcryptprimitives.dll, which Wine 8 lacks and Bun's Windows runtime imports for
 * ProcessPrng (its only import from it). Forwards to BCryptGenRandom with the system RNG, which is
 * what Windows' own ProcessPrng amounts to. Built with mingw by scripts/wine-setup.sh into the Wine
 * prefix only; never shipped, never used on Windows.
 */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
  while (size > 0) {
    ULONG chunk = size > 0x40000000 ? 0x40000000 : (ULONG)size;
    if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG))) return FALSE;
    data += chunk;
    size -= chunk;
  }
  return TRUE;
}
