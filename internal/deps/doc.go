// Package deps satisfies the FetchContent dependencies a backend's CMake
// would download, so CMake never touches the network: a content-addressed
// cache of verified archives (filled only by Fetch, from the network or a
// local mirror), system packages found by their CMake package config, and
// directories the user names. Resolve picks a provider for each declared
// dependency before configure; WriteProvider renders the CMake dependency
// provider that routes every FetchContent_MakeAvailable call to it.
package deps
