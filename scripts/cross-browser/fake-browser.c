/* A stand-in for Chromium on Windows, for tests under Wine (no Windows Chromium runs here):
 * it takes the DevTools pipe exactly as Chromium does with --remote-debugging-io-pipes=IN,OUT
 * (two inherited handles by number, each refused unless GetFileType says it is a pipe) and
 * answers NUL-separated JSON commands. It proves Wisp's side of the handover — the relay, the
 * handles, the Job Object — not anything about a real browser.
 *
 * In --user-data-dir it writes:
 *   command-line.txt  its whole command line, then "stdin=T stdout=T" (GetFileType of its own
 *                     standard handles: the relay gives it NUL, a character device, 2)
 *   methods.txt       each command's method, one per line, as received
 * and if that folder holds a file named "linger" it never exits by itself (not on
 * Browser.close, not on the pipe closing): only ending its Job Object stops it.
 *
 * Answers: Target.createTarget -> {"targetId":"T<n>"}, Target.attachToTarget ->
 * {"sessionId":"S<n>"}, anything else -> {}. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static wchar_t profile[4096];
static int lingering;

static void append(const wchar_t *name, const char *text) {
    wchar_t path[4200];
    swprintf(path, 4200, L"%ls\\%ls", profile, name);
    FILE *f = _wfopen(path, L"ab");
    if (!f) exit(5);
    fputs(text, f);
    fclose(f);
}

static void linger_or_exit(int code) {
    if (lingering)
        for (;;) Sleep(INFINITE);
    exit(code);
}

static void reply(HANDLE out, long long id, const char *result) {
    char buf[512];
    int n = snprintf(buf, sizeof buf, "{\"id\":%lld,\"result\":%s}", id, result);
    DWORD written;
    if (!WriteFile(out, buf, (DWORD)n + 1, &written, NULL)) linger_or_exit(0); /* with its NUL */
}

static void answer(HANDLE out, char *msg) {
    static int targets;
    char *id_at = strstr(msg, "\"id\":");
    char *method_at = strstr(msg, "\"method\":\"");
    if (!id_at || !method_at) exit(6);
    long long id = atoll(id_at + 5);
    char method[128] = {0};
    char *m = method_at + 10;
    size_t len = strcspn(m, "\"");
    if (len >= sizeof method) exit(7);
    memcpy(method, m, len);
    char line[160];
    snprintf(line, sizeof line, "%s\n", method);
    append(L"methods.txt", line);
    char result[128];
    if (!strcmp(method, "Target.createTarget"))
        snprintf(result, sizeof result, "{\"targetId\":\"T%d\"}", ++targets);
    else if (!strcmp(method, "Target.attachToTarget"))
        snprintf(result, sizeof result, "{\"sessionId\":\"S%d\"}", targets);
    else
        strcpy(result, "{}");
    reply(out, id, result);
    if (!strcmp(method, "Browser.close")) linger_or_exit(0);
}

int wmain(int argc, wchar_t **argv) {
    unsigned long in_number = 0, out_number = 0;
    int have_pipes = 0;
    for (int i = 1; i < argc; i++) {
        if (!wcsncmp(argv[i], L"--remote-debugging-io-pipes=", 28))
            have_pipes = swscanf(argv[i] + 28, L"%lu,%lu", &in_number, &out_number) == 2;
        else if (!wcsncmp(argv[i], L"--user-data-dir=", 16))
            wcsncpy(profile, argv[i] + 16, 4095);
    }
    if (!profile[0]) return 2;
    CreateDirectoryW(profile, NULL);
    wchar_t linger_path[4200];
    swprintf(linger_path, 4200, L"%ls\\linger", profile);
    lingering = GetFileAttributesW(linger_path) != INVALID_FILE_ATTRIBUTES;

    char command_line[16384];
    WideCharToMultiByte(CP_UTF8, 0, GetCommandLineW(), -1, command_line, sizeof command_line - 64, NULL, NULL);
    char types[64];
    snprintf(types, sizeof types, "\nstdin=%lu stdout=%lu\n",
             GetFileType(GetStdHandle(STD_INPUT_HANDLE)), GetFileType(GetStdHandle(STD_OUTPUT_HANDLE)));
    append(L"command-line.txt", command_line);
    append(L"command-line.txt", types);

    if (!have_pipes) return 3;
    HANDLE in = (HANDLE)(ULONG_PTR)in_number, out = (HANDLE)(ULONG_PTR)out_number;
    if (GetFileType(in) != FILE_TYPE_PIPE || GetFileType(out) != FILE_TYPE_PIPE) return 4;

    static char pending[1 << 20];
    size_t used = 0;
    for (;;) {
        DWORD got;
        if (!ReadFile(in, pending + used, (DWORD)(sizeof pending - used), &got, NULL) || got == 0)
            linger_or_exit(0);
        used += got;
        char *start = pending, *nul;
        while ((nul = memchr(start, 0, used - (size_t)(start - pending)))) {
            answer(out, start);
            start = nul + 1;
        }
        used -= (size_t)(start - pending);
        memmove(pending, start, used);
        if (used == sizeof pending) return 8;
    }
}
