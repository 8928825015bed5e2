#pragma once
// The thread pool for core work. Not QThreadPool::globalInstance(): Qt's raster paint engine
// and image conversions queue their own tasks there and wait for them, so long dequantization
// chunks in the global pool would stall painting on the GUI thread.

class QThreadPool;

QThreadPool* jobPool();

// Called first thing in every job on a pool thread: lowers that thread's scheduling priority
// (Linux nice 10, per thread) so the GUI thread wins the CPU whenever it has painting to do.
void yieldToGuiThread();

// Which queued work the pool starts first (QThreadPool's priority: higher first, in order of
// arrival among equals). A request someone is waiting on (a search, a value under the cursor)
// must not queue behind a hundred chunks of a background sweep; running chunks are never
// interrupted, so the wait is at most one chunk.
enum class JobPriority : int {
    Background = 0,   // sweeps over many layers or files, scans
    Normal = 1,       // the default: a view's own computation
    Interactive = 2,  // answers to typing or pointing: searches, lookups
};

// The priority of the job whose chunk runs on this thread (Normal outside any job): work a chunk
// hands to the pool's other threads (JobPoolExecutor) queues with it.
JobPriority currentJobPriority();
void setCurrentJobPriority(JobPriority priority);
