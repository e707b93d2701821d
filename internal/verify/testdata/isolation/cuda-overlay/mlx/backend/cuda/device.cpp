int cuda_device_count() { return 1; }
