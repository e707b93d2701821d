package compilecache

import (
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strconv"
)

// Languages are the CMake languages whose compiles go through the launcher.
// A define for a language the project does not enable is harmless.
var Languages = []string{"C", "CXX", "HIP", "CUDA"}

// MLXOwnLauncher is MLX's own launcher switch (its CMakeLists.txt:
// option MLX_USE_CCACHE, ON by default). When on and ccache is on PATH, MLX
// sets CMAKE_<LANG>_COMPILER_LAUNCHER as plain variables, which shadow the
// cache entries Setup passes: "no launcher" still compiled through ccache
// (into ~/.cache/ccache, outside the backend's cache), and sccache was
// replaced by ccache. Setup always turns it off, since mlxbuild owns the
// launcher.
const MLXOwnLauncher = "MLX_USE_CCACHE"

// Setup returns the CMake defines that put the launcher in front of every
// compiler (CMAKE_<LANG>_COMPILER_LAUNCHER, the tool's absolute path) and
// the environment the build needs (to be given to Ninja, not to the stamp).
//
// backendDir holds the backend's local cache (<backendDir>/ccache or
// <backendDir>/sccache). baseDir is a directory above both the tree and the
// build directory: ccache rewrites absolute paths under it to relative
// ones, so two checkouts in different directories share cache entries.
//
// On a nil *Config the defines set every launcher to "" so that turning the
// launcher off reconfigures CMake without it; the environment is empty.
// Either way MLXOwnLauncher is OFF.
//
// The defines also name the launcher of custom commands (LaunchScript,
// InstallLauncher), whatever the tool: it keeps a HIP compile's offload
// jobs within Ninja's job count with or without a cache, and hands HIP
// compiles to ccache. sccache gets no HIP compile at all (see HIPNote).
func (c *Config) Setup(backendDir, baseDir string) (defines map[string]string, env []string, err error) {
	launcher, err := launcherPath(backendDir)
	if err != nil {
		return nil, nil, err
	}
	defines = map[string]string{MLXOwnLauncher: "OFF", launchDefine: launcher, launchCacheDefine: ""}
	if c == nil {
		for _, l := range Languages {
			defines["CMAKE_"+l+"_COMPILER_LAUNCHER"] = ""
		}
		return defines, nil, nil
	}
	tool, err := c.lookPath()
	if err != nil {
		return nil, nil, err
	}
	if tool, err = filepath.Abs(tool); err != nil {
		return nil, nil, err
	}
	for _, l := range Languages {
		defines["CMAKE_"+l+"_COMPILER_LAUNCHER"] = tool
	}
	if c.cachesHIP() {
		defines[launchCacheDefine] = tool
	} else {
		defines["CMAKE_HIP_COMPILER_LAUNCHER"] = ""
	}
	switch c.Tool {
	case "ccache":
		env = c.ccacheEnv(backendDir, baseDir)
	case "sccache":
		env, err = c.sccacheEnv(backendDir)
		// sccache's equivalent of CCACHE_BASEDIR (0.15 and newer; older
		// releases ignore it and share only between identical paths).
		env = append(env, "SCCACHE_BASEDIRS="+baseDir)
	}
	return defines, env, err
}

func (c *Config) ccacheEnv(backendDir, baseDir string) []string {
	env := []string{
		"CCACHE_DIR=" + filepath.Join(backendDir, "ccache"),
		// Paths under the base directory become relative, and the working
		// directory is left out of the hash: a checkout's location must
		// not defeat sharing.
		"CCACHE_BASEDIR=" + baseDir,
		"CCACHE_NOHASHDIR=1",
		// The default (the compiler's mtime) differs between machines that
		// installed the same compiler at different times; its content
		// does not.
		"CCACHE_COMPILERCHECK=content",
		// A miss would otherwise run the preprocessor before the compile
		// (about a seventh more CPU on real MLX, docs/benchmarks.md); in
		// depend mode the key comes from the depfile the compile writes
		// anyway (Ninja's -MD). Compiles without -MD, such as the ROCm
		// fork's custom commands, fall back to preprocessor mode.
		"CCACHE_DEPEND=1",
	}
	if c.Remote != "" {
		env = append(env, "CCACHE_REMOTE_STORAGE="+c.Remote)
	} else {
		// A remote from the user's ccache.conf would be a surprise here.
		env = append(env, "CCACHE_REMOTE_STORAGE=")
	}
	return env
}

func (c *Config) sccacheEnv(backendDir string) ([]string, error) {
	dir := filepath.Join(backendDir, "sccache")
	env := []string{
		"SCCACHE_DIR=" + dir,
		// sccache reads its settings once, when its server starts; a
		// server per cache directory keeps another project's server (with
		// another store) from serving this build.
		"SCCACHE_SERVER_PORT=" + strconv.Itoa(sccachePort(dir)),
	}
	switch scheme(c.Remote) {
	case "":
	case "redis":
		env = append(env, "SCCACHE_REDIS="+c.Remote)
	case "http", "https":
		env = append(env, "SCCACHE_WEBDAV_ENDPOINT="+c.Remote)
	default:
		return nil, fmt.Errorf("sccache cannot use %s; use redis:// or an http(s):// WebDAV store", Redact(c.Remote))
	}
	return env, nil
}

// sccachePort maps a cache directory to a port in 20000-29999, so each
// cache gets its own sccache server.
func sccachePort(dir string) int {
	h := fnv.New32a()
	h.Write([]byte(dir))
	return 20000 + int(h.Sum32()%10000)
}

func scheme(remote string) string {
	for i := 0; i < len(remote); i++ {
		if remote[i] == ':' {
			return remote[:i]
		}
	}
	return ""
}

// cachesHIP reports whether the tool caches HIP compiles. ccache 4.x does
// (`clang++ -x hip --offload-arch=...`, and .hip sources: a second compile
// is a direct hit); sccache 0.4 counts every one as not cacheable ("-x",
// "unknown source language") and only adds a server round trip.
func (c *Config) cachesHIP() bool { return c != nil && c.Tool == "ccache" }

// HIPNote is what to tell the user, once, when the chosen tool will not
// see the HIP compiles; "" when it does or there is none.
func (c *Config) HIPNote() string {
	if c == nil || c.cachesHIP() {
		return ""
	}
	return fmt.Sprintf("%s (%s) does not cache HIP compiles: they run without it, the rest of the build uses it; set launcher tool ccache to cache them", c.Tool, c.From)
}
