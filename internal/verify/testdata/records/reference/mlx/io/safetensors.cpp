// safetensors
int load() { return 2; }
