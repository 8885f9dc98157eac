/// Content types guessed from file extensions, used when an upload gives no `Content-Type` (put, initiate and
/// resumable upload), as the iOS and the other official SDKs do. Unknown extensions get `application/octet-stream`.
public enum OSSMimeType {
    /// The fallback type.
    public static let defaultType = "application/octet-stream"

    /// The type for a file name, path or object key (`photos/cat.JPG` → `image/jpeg`), or `nil` for an unknown or
    /// missing extension.
    public static func guess(for name: String) -> String? {
        let last = name.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(name)
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return nil }
        let ext = last[last.index(after: dot)...].lowercased()
        return table[ext]
    }

    /// The first guess among `names` (e.g. the local file, then the object key), or `nil`.
    static func guess(_ names: String?...) -> String? {
        for name in names {
            if let name, let type = guess(for: name) { return type }
        }
        return nil
    }

    /// Extension (lower case, no dot) → content type.
    public static let table: [String: String] = [
        // Images
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "jpe": "image/jpeg", "png": "image/png", "gif": "image/gif",
        "bmp": "image/bmp", "webp": "image/webp", "svg": "image/svg+xml", "svgz": "image/svg+xml",
        "ico": "image/x-icon", "tif": "image/tiff", "tiff": "image/tiff", "heic": "image/heic", "heif": "image/heif",
        "avif": "image/avif",
        // Video
        "mp4": "video/mp4", "m4v": "video/x-m4v", "mov": "video/quicktime", "avi": "video/x-msvideo",
        "wmv": "video/x-ms-wmv", "flv": "video/x-flv", "mkv": "video/x-matroska", "webm": "video/webm",
        "mpeg": "video/mpeg", "mpg": "video/mpeg", "3gp": "video/3gpp", "3g2": "video/3gpp2", "ts": "video/mp2t",
        "m3u8": "application/x-mpegURL",
        // Audio
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/x-wav", "ogg": "audio/ogg",
        "oga": "audio/ogg", "flac": "audio/flac", "amr": "audio/amr", "mid": "audio/midi", "midi": "audio/midi",
        "wma": "audio/x-ms-wma", "opus": "audio/opus",
        // Text and web
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown", "csv": "text/csv",
        "tsv": "text/tab-separated-values", "htm": "text/html", "html": "text/html", "css": "text/css",
        "js": "application/javascript", "mjs": "application/javascript", "json": "application/json",
        "xml": "application/xml", "yaml": "application/x-yaml", "yml": "application/x-yaml", "ics": "text/calendar",
        "rtf": "application/rtf",
        // Documents
        "pdf": "application/pdf", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "key": "application/vnd.apple.keynote", "pages": "application/vnd.apple.pages",
        "numbers": "application/vnd.apple.numbers", "epub": "application/epub+zip",
        // Archives and binaries
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip", "tar": "application/x-tar",
        "bz2": "application/x-bzip2", "7z": "application/x-7z-compressed", "rar": "application/vnd.rar",
        "apk": "application/vnd.android.package-archive", "ipa": "application/octet-stream",
        "dmg": "application/x-apple-diskimage", "wasm": "application/wasm",
        // Fonts
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
    ]
}
