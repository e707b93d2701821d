module github.com/mlxbuild/mlxbuild

go 1.26

require (
	github.com/hashicorp/go-version v1.9.0
	github.com/magefile/mage v1.17.2
	github.com/rogpeppe/go-internal v1.16.0
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/sys v0.42.0
	golang.org/x/term v0.41.0
)

require golang.org/x/tools v0.26.0 // indirect
