#if canImport(Darwin)
import os
#else
import Synchronization
#endif

/// A value behind a lock, for state shared by synchronous code (delegate callbacks, progress handlers) where an
/// actor's hop would be wrong. `withLockedValue` runs its closure synchronously with the lock held; never await or
/// call out to user code inside it.
///
/// The lock is what the platform has at the package's minimum deployment targets: `OSAllocatedUnfairLock` on Apple
/// platforms (macOS 13, iOS 16, tvOS 16, watchOS 9: the same as its own availability), `Mutex` from the
/// Synchronization module elsewhere (on Apple platforms `Mutex` needs macOS 15 / iOS 18). Both are Sendable by their
/// own declaration, so this type needs no unchecked conformance.
#if canImport(Darwin)
package struct OSSLockedValue<Value: Sendable>: Sendable {
    @usableFromInline let lock: OSAllocatedUnfairLock<Value>

    @inlinable package init(_ value: Value) {
        lock = OSAllocatedUnfairLock(initialState: value)
    }

    @inlinable package func withLockedValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        // The unchecked variant only drops the @Sendable requirement on a closure that runs synchronously, here.
        try lock.withLockUnchecked(body)
    }
}
#else
package final class OSSLockedValue<Value: Sendable>: Sendable {
    @usableFromInline let mutex: Mutex<Value>

    @inlinable package init(_ value: Value) {
        mutex = Mutex(value)
    }

    @inlinable package func withLockedValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { value throws -> sending Result in try body(&value) }
    }
}
#endif
