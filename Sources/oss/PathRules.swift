import AliyunOSS

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one reading of paths every command shares, so that no command reads `oss://b/site` differently from another
/// (`oss --help` and the README's CLI section print ``helpText``):
///
/// - A command that works on many objects (`ls`, `cp -r`, `sync`, `rm -r`) names a folder: `oss://b/site` and
///   `oss://b/site/` both mean the keys under `site/` (never `site-backup/...` or `siteX.txt`), `oss://b` the
///   whole bucket. This is what aws s3 does for `cp`/`sync`/`rm --recursive`; ossutil matches a name prefix
///   instead, and so does `aws s3 ls`: here `ls` follows the folder rule too, and shows the object named exactly
///   `site` as well when there is one.
/// - A destination ending in `/` means "into this folder", keeping the source's name, on both sides
///   (`oss cp p.txt oss://b/dir/` stores `dir/p.txt`; `oss cp oss://b/k newdir/` writes `newdir/k`, creating
///   `newdir`), and so does an existing local directory, as aws s3 and ossutil do. Without the slash a remote
///   destination is the object's exact key.
enum PathRule {
    static let helpText = """
        Paths: ls, cp -r, sync and rm -r take oss://bucket/path as the folder path/ (oss://b/site and oss://b/site/ \
        both mean the keys under site/, never site-backup/ or siteX.txt; oss://b is the whole bucket), as aws s3 does \
        for cp, sync and rm. A destination ending in / (or an existing local directory) means into that folder, \
        keeping the source's name: oss cp p.txt oss://b/dir/ stores dir/p.txt, oss cp oss://b/k newdir/ writes \
        newdir/k. Without the slash a remote destination is the exact key.
        """

    /// The folder (key prefix) a command over many objects names: `""` for the whole bucket, else the key with
    /// one trailing `/`.
    static func folder(_ uri: OSSURI) -> String {
        guard !uri.key.isEmpty else { return "" }
        return uri.key.hasSuffix("/") ? uri.key : uri.key + "/"
    }

    /// The last component of a key or path: the name a copy into a folder keeps.
    static func name(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// The object a single copy writes: `destination` itself, or `destination/name` when it names a folder (ends in
    /// `/`, or is the bucket).
    static func remoteTarget(_ destination: OSSURI, sourceName: String) -> OSSURI {
        var target = destination
        if target.key.isEmpty || target.key.hasSuffix("/") { target.key += sourceName }
        return target
    }

    /// The file a single download writes: `destination` itself, or `destination/name` when it names a folder (ends
    /// in `/`, created when missing, or is an existing directory).
    static func localTarget(_ destination: String, sourceName: String) throws -> URL {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory)
        if destination.hasSuffix("/") {
            if exists && !isDirectory.boolValue {
                throw CLIFailure(.clientError, "\(destination) ends in / but is a file, not a directory")
            }
            if !exists {
                try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
            }
            return URL(fileURLWithPath: destination, isDirectory: true).appendingPathComponent(sourceName)
        }
        if exists && isDirectory.boolValue {
            return URL(fileURLWithPath: destination, isDirectory: true).appendingPathComponent(sourceName)
        }
        return URL(fileURLWithPath: destination)
    }
}

extension PathRule {
    /// The local file a single upload reads: refused at once when it is missing, unreadable or a directory (which
    /// `cp -r` copies).
    static func singleFileSource(_ path: String) throws -> URL {
        // open(2) tells why a path cannot be read (ENOENT, ENOTDIR through a file, EACCES, ELOOP); O_NONBLOCK so
        // that a FIFO does not hold the command here.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CLIFailure(.clientError, "cannot read \(path): \(describeErrno(errno))")
        }
        close(descriptor)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CLIFailure(.clientError, "\(path) is a directory: copy it with cp -r (or sync)")
        }
        return URL(fileURLWithPath: path)
    }
}

extension PathRule {
    /// The object named exactly by `uri` (`site` for `oss://b/site`), for `ls` of a name that is not a folder;
    /// nil for a folder-like URL (empty or ending in `/`) or when there is no such object.
    static func exactObject(_ uri: OSSURI, client: OSSClient) async throws -> OSSObjectSummary? {
        guard !uri.key.isEmpty, !uri.key.hasSuffix("/") else { return nil }
        // The first key with the name as prefix is the name itself when it exists: it sorts before all the others.
        let page = try await client.listObjectsV2(OSSListObjectsV2Request(bucketName: uri.bucket, prefix: uri.key, maxKeys: 1))
        return page.contents.first.flatMap { $0.objectKey == uri.key ? $0 : nil }
    }
}
