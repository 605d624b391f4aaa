"""Batch 39's dev classes (session 17, 3D repositories with their own CUDA extensions): the driver API's
CUDA_ERROR_OUT_OF_MEMORY, THC's removal said in words, a system header missing while torch's extension builder
compiles (now extension-build-missing-system-headers), and conda's older libstdc++ lacking a GLIBCXX version, said in words. Each wording names its cause
first; each close text does not."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    ("cuda-out-of-memory", "CUDA_ERROR_OUT_OF_MEMORY\n\nIs there any limitation on the training image resolution?"),
    ("extension-build-error", "`./extensions/emd` does not compile with torch 1.11.0 because of the now missing `THC/THC.h` "
                              "header file."),
    # (session 21: its own entry since, extension-build-missing-system-headers, which extension-build-error hands it to)
    ("extension-build-missing-system-headers", "/usr/local/lib/python3.11/site-packages/nvdiffrast/torch/../common/glutil.h:36:10: fatal error: "
                                               "EGL/egl.h: No such file or directory\n   36 | #include <EGL/egl.h>\ncompilation terminated.\n"
                                               "ninja: build stopped: subcommand failed."),
    ("libstdcxx-too-old", "the import of Open3D python package may not work due to missing symbols (`GLIBCXX_3.4.30`)."),
]

NOT_THESE = [
    # the runtime API's error string is the same cause, but a different wording: this one must not claim other errors
    ("cuda-out-of-memory", "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"),
    # THC named, nothing missing
    ("extension-build-error", "The old kernels used THC/THC.h and I ported them to ATen; they build fine now."),
    # a missing header in a plain C build, nothing of torch's extension builder
    ("extension-build-error", "gcc main.c\nmain.c:1:10: fatal error: zlib.h: No such file or directory"),
    # GLIBCXX named as present
    ("libstdcxx-too-old", "strings libstdc++.so.6 | grep GLIBCXX_3.4.30 prints GLIBCXX_3.4.30, so it is there"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
