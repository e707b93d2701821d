package flow

import (
	"context"
	"strings"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/configs"
)

// limitFindings are a toolchain's own limits that a build checks before
// configure, for a toolchain whose limits are cheap to ask (nvcc: its
// host compiler and its lists of architectures): the host compiler the
// build would use, then every architecture the build would resolve.
func limitFindings(name string, spec *configs.Spec, t backends.Toolchain, o Options) []Finding {
	hc, ok := t.(backends.HostCompilerChecker)
	if !ok {
		return nil
	}
	defines := map[string]string{}
	for _, d := range spec.ActiveDefines(o.GOOS) {
		defines[d.Name] = d.Value
	}
	host := Finding{Backend: name, What: "host compiler", OK: true, Detail: "accepted by " + t.String()}
	if v := o.Env("CUDAHOSTCXX"); v != "" {
		host.Detail = "CUDAHOSTCXX=" + v + " " + host.Detail
	}
	if err := hc.CheckHostCompiler(o.Env, defines); err != nil {
		host.OK, host.Detail, host.Fix = false, err.Error(), "set CUDAHOSTCXX, or -allow-unsupported-compiler in CMAKE_CUDA_FLAGS"
	}
	fs := []Finding{host}
	if spec.Architectures == nil {
		return fs
	}
	archs := Finding{Backend: name, What: "architectures", OK: true}
	r, err := resolveArch(context.Background(), spec, name, o.Env, "")
	if err != nil {
		// Unresolved is the build's own refusal, said by arch:<backend>;
		// here only what the toolkit compiles is judged.
		archs.Detail = "not checked against the toolkit: " + err.Error()
		return append(fs, archs)
	}
	archs.Detail = strings.Join(r.Targets, ";") + " (" + r.Source + "), each compiled by " + t.String()
	for _, target := range r.Targets {
		if err := t.SupportsArch(target); err != nil {
			archs.OK, archs.Detail, archs.Fix = false, err.Error(), "change "+spec.Architectures.Env+" or the toolkit"
			break
		}
	}
	return append(fs, archs)
}
