// A static kernel variable, launched in the same function.
#include "mlx/fast.h"

namespace mx = mlx::core;

constexpr const char* softcap_source = R"(
  // metal_kernel( in the kernel's own text is not a call site
  uint elem = thread_position_in_grid.x;
  T v = inp[elem];
  out[elem] = metal::precise::tanh(v / cap) * cap;
)";

mx::array softcap(const mx::array& x, float cap) {
  static auto kernel = mx::fast::metal_kernel(
      "softcap", {"inp", "cap"}, {"out"}, softcap_source);
  auto outputs = kernel(
      {x, mx::array(cap)},
      {x.shape()},
      {x.dtype()},
      {static_cast<int>(x.size()), 1, 1},
      {256, 1, 1},
      {{"T", x.dtype()}},
      std::nullopt,
      false,
      {});
  return outputs[0];
}
