// Stand-in for a backend's custom kernel implementation, in the shape of the
// ROCm fork's (NripeshN/mlx 75915908, mlx/backend/rocm/custom_kernel.cpp):
// the generated source declares each input with its dtype and leaves out
// the shape of a scalar input, and the compiled module is cached by name.
#include <sstream>
#include <string>

namespace mlx::core::fast {

std::string template_arguments_hash(const TemplateArgs& template_args) {
  std::ostringstream hash;
  for (const auto& [name, arg] : template_args) {
    hash << "_" << arg_string(arg);
  }
  return hash.str();
}

std::string build_kernel(const std::string& func_name, const std::vector<array>& inputs,
                         const std::vector<std::string>& input_names) {
  std::ostringstream kernel_source;
  kernel_source << "__global__ void " << func_name << "(\n";
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& arr = inputs[i];
    kernel_source << "    const " << dtype_to_hip_type(arr.dtype()) << "* " << input_names[i] << ",\n";
    if (arr.ndim() > 0) {
      kernel_source << "    const int32_t* " << input_names[i] << "_shape,\n";
    }
  }
  kernel_source << ") {\n}\n";
  return kernel_source.str();
}

CustomKernelFunction hip_kernel(const std::string& name, const std::vector<std::string>& input_names) {
  return [=](const std::vector<array>& inputs, const TemplateArgs& template_args) {
    std::string kernel_name =
        "custom_kernel_" + name + template_arguments_hash(template_args);
    std::string kernel_source = build_kernel(kernel_name, inputs, input_names);
    return make_custom_kernel(std::move(kernel_name), std::move(kernel_source), inputs);
  };
}

void CustomKernel::eval_gpu(const std::vector<array>& inputs, std::vector<array>& outputs) {
  auto& s = stream();
  rocm::JitModule& mod = rocm::get_jit_module(
      s.device,
      name_,
      [&]() { return std::make_tuple(false, source_, std::vector{name_}); },
      false);
  launch(mod.get_kernel(name_), inputs, outputs);
}

} // namespace mlx::core::fast
