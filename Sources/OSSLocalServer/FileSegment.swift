/// A byte range of one data file: a piece of an object's content.
///
/// An object stored as one file reads as one segment; a completed multipart object (kept as its part files and a
/// manifest, see ``ObjectSegment``) reads as one segment per part that the range touches.
struct FileSegment: Sendable, Equatable {
    var path: String
    var offset: Int64
    var length: Int64
}
