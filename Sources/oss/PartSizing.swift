/// The part size `oss cp` uploads with when `--part-size` is not given: about 64 parts per file, as a power of two
/// between 1 MiB and 64 MiB.
///
/// Why (docs/BENCHMARKS.md, "Part size"): each part costs a request, a record update and, on the server, a file of
/// its own, so 1 MiB parts (the SDK's default, chosen for apps on cellular networks where a failed part should be
/// cheap to send again) make a 512 MiB upload about 1.5 times slower than 8 MiB parts on the local server, while
/// parts beyond 8-16 MiB gain nothing more. About 64 parts keeps four threads busy to the end and makes a resume
/// lose at most a few percent of the file; small files keep 1 MiB parts, so they are never one big part that a
/// failure sends again whole. The choice depends only on the file's size, so a rerun of the same command
/// resumes (the part size is part of the checkpoint's identity).
enum PartSizing {
    static let smallest: Int64 = 1 << 20
    static let largest: Int64 = 64 << 20
    static let targetParts: Int64 = 64

    static func uploadPartSize(fileSize: Int64) -> Int64 {
        var size = smallest
        while size < largest, size * targetParts < fileSize { size *= 2 }
        return size
    }
}
