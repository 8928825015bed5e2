#pragma once
// The thread pool for core work. Not QThreadPool::globalInstance(): Qt's raster paint engine
// and image conversions queue their own tasks there and wait for them, so long dequantization
// chunks in the global pool would stall painting on the GUI thread.

class QThreadPool;

QThreadPool* jobPool();
