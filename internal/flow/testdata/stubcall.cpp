// Linked into the C++ consumer by the job tests: it really calls one
// function of each stub library at start-up, so the linker (which runs with
// --as-needed on Debian) keeps them in NEEDED and the loader must resolve
// them through the link plan's run path.
#include <cstdio>

extern "C" int rocblas_create_handle(void** handle);
extern "C" int hipblasLtCreate(void** handle);

namespace {
struct CallStubs {
  CallStubs() {
    void* h = nullptr;
    int rb = rocblas_create_handle(&h);
    int lt = hipblasLtCreate(&h);
    std::printf("stubs: rocblas_create_handle=%d hipblasLtCreate=%d\n", rb, lt);
  }
} call_stubs;
} // namespace
