import NIOCore
import NIOPosix

/// Where the local server does its blocking file work, away from Swift's cooperative thread pool.
///
/// A slow `fsync` (a busy disk can take seconds) must not stall the cooperative pool: the server's connection
/// handlers, and in tests the SDK clients in the same process, run there, and on a 2-core machine the pool has 2
/// threads. Process-wide and started on first use, like NIO's own singletons.
enum ServerIO {
    /// Body writes, fsyncs and part concatenation. Separate from `NIOThreadPool.singleton`, which NIOFileSystem
    /// (and so the SDK's file reads in the same process) uses.
    static let blockingPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 8)
        pool.start()
        return pool
    }()

    /// The threads the metadata stores (``ObjectStore`` actors) run on: their atomic JSON writes fsync. Each store
    /// stays on one loop; several loops keep many servers in one process (a test run starts hundreds) from queueing
    /// behind each other's fsyncs, which are waits on the disk, not CPU work.
    static let storeLoops = MultiThreadedEventLoopGroup(numberOfThreads: 8)
}
