/* SPDX-License-Identifier: Apache-2.0
 * A program as MSVC's toolchain builds it: compiled for the MSVC ABI
 * (clang --target=x86_64-pc-windows-msvc), linked by lld-link (link.exe's
 * command line and import-library reader) against lib/x64/cudnn_ops_infer.lib
 * only, with no C runtime.  It loads cudnn_ops_infer64_8.dll, whose
 * forwarders reach cudnn64_8.dll.  Exit code 42 when the calls work
 * (tests/windows/msvc_link.sh). */
unsigned long long cudnnGetVersion(void);
int cudnnCreate(void **handle);
int cudnnDestroy(void *handle);

int
start(void)
{
    void *handle = 0;
    if (cudnnCreate(&handle) != 0 || handle == 0 || cudnnDestroy(handle) != 0)
        return 1;
    return cudnnGetVersion() == 8904 ? 42 : 2;
}
