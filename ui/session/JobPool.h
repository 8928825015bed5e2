#pragma once
// The thread pool for core work. Not QThreadPool::globalInstance(): Qt's raster paint engine
// and image conversions queue their own tasks there and wait for them, so long dequantization
// chunks in the global pool would stall painting on the GUI thread.

class QThreadPool;

QThreadPool* jobPool();

// Called first thing in every job on a pool thread: lowers that thread's scheduling priority
// (Linux nice 10, per thread) so the GUI thread wins the CPU whenever it has painting to do.
void yieldToGuiThread();
