import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// Holds every read of chosen files until a handler has run: Linux fanotify permission events (`FAN_ACCESS_PERM`),
/// for which the kernel blocks the reading thread until this process answers. A test changes a file between two
/// reads the SDK makes, at that exact point and with no timing involved. Needs root (`CAP_SYS_ADMIN`); Linux only.
final class FileReadGate: Sendable {
    private let descriptor: Int32
    private let stopping = NIOLockedValueBox(false)
    private let stopped = DispatchSemaphore(value: 0)

    /// Watches `paths`; `handler` runs on the gate's own thread before each read of one of them is let through, with
    /// the path as given and the number of that read (1 for the first read of the path). The reading thread waits
    /// until `handler` returns, so `handler` must not read the watched files itself.
    init(watching paths: [String], _ handler: @escaping @Sendable (_ path: String, _ read: Int) -> Void) throws {
        #if os(Linux)
        typealias InitFunction = @convention(c) (UInt32, UInt32) -> Int32
        typealias MarkFunction = @convention(c) (Int32, UInt32, UInt64, Int32, UnsafePointer<CChar>) -> Int32
        guard let initSymbol = dlsym(nil, "fanotify_init"), let markSymbol = dlsym(nil, "fanotify_mark") else {
            throw SetupUnavailable(description: "this C library has no fanotify_init/fanotify_mark")
        }
        let fanotifyInit = unsafeBitCast(initSymbol, to: InitFunction.self)
        let fanotifyMark = unsafeBitCast(markSymbol, to: MarkFunction.self)
        let classContent: UInt32 = 0x04, closeOnExec: UInt32 = 0x01, markAdd: UInt32 = 0x01
        let accessPermission: UInt64 = 0x0002_0000
        let fd = fanotifyInit(classContent | closeOnExec, UInt32(O_RDONLY | O_CLOEXEC))
        guard fd >= 0 else {
            let code = errno
            throw SetupUnavailable(
                description: "holding file reads needs root (CAP_SYS_ADMIN, for fanotify permission events); this "
                    + "process runs as uid \(getuid()) and fanotify_init failed: \(String(cString: strerror(code)))")
        }
        var given: [String: String] = [:]
        for path in paths {
            let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            given[resolved] = path
            guard fanotifyMark(fd, markAdd, accessPermission, AT_FDCWD, resolved) == 0 else {
                let code = errno
                close(fd)
                throw SetupUnavailable(description: "fanotify_mark \(path): \(String(cString: strerror(code)))")
            }
        }
        descriptor = fd
        let names = given
        let stopping = self.stopping
        let stopped = self.stopped
        Thread.detachNewThread {
            Self.serve(fd, names: names, stopping: stopping, handler)
            stopped.signal()
        }
        #else
        throw SetupUnavailable(description: "holding file reads needs Linux fanotify")
        #endif
    }

    /// Lets every read through from now on and closes the gate (reads it still held are allowed by the kernel).
    func stop() {
        stopping.withLockedValue { $0 = true }
        stopped.wait()
        #if os(Linux)
        close(descriptor)
        #endif
    }

    #if os(Linux)
    /// Answers the events on `fd` until `stopping`: the handler first, then `FAN_ALLOW`.
    private static func serve(
        _ fd: Int32, names: [String: String], stopping: NIOLockedValueBox<Bool>,
        _ handler: @Sendable (String, Int) -> Void
    ) {
        var reads: [String: Int] = [:]
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopping.withLockedValue({ $0 }) {
            var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 20) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            guard count > 0 else { continue }
            var offset = 0
            // struct fanotify_event_metadata: event_len (u32), vers, reserved (u8), metadata_len (u16), mask (u64),
            // fd (s32), pid (s32).
            while offset + 24 <= count {
                let (length, file) = buffer.withUnsafeBytes {
                    ($0.loadUnaligned(fromByteOffset: offset, as: UInt32.self),
                     $0.loadUnaligned(fromByteOffset: offset + 16, as: Int32.self))
                }
                if file >= 0 {
                    let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(file)")) ?? ""
                    if let name = names[path] {
                        reads[name, default: 0] += 1
                        handler(name, reads[name]!)
                    }
                    // struct fanotify_response: fd (s32), response (u32, FAN_ALLOW = 1).
                    var response: (Int32, UInt32) = (file, 1)
                    _ = withUnsafeBytes(of: &response) { write(fd, $0.baseAddress!, 8) }
                    close(file)
                }
                offset += Int(max(length, 24))
            }
        }
    }
    #endif
}
