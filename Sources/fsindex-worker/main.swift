import Isolation

// Interim entry point; replaced by the worker loop.
print(WorkerLimits().addressSpaceBytes)
