/// The two local paths of a download record (foreground or background), stored relative to the transfer's base
/// directory when it has one (see ``OSSBaseDirectory``), so a record survives the app's container moving.
package protocol OSSDownloadRecordPaths {
    /// The final destination.
    var destinationPath: String { get set }
    /// The temporary file the parts are written to.
    var tempFilePath: String { get set }
}

extension OSSDownloadRecordPaths {
    package func relativized(to base: OSSBaseDirectory) -> Self {
        var record = self
        record.destinationPath = base.portable(destinationPath)
        record.tempFilePath = base.portable(tempFilePath)
        return record
    }

    package func resolved(against base: OSSBaseDirectory?) throws(OSSResumableError) -> Self {
        var record = self
        record.destinationPath = try OSSBaseDirectory.resolve(destinationPath, against: base)
        record.tempFilePath = try OSSBaseDirectory.resolve(tempFilePath, against: base)
        return record
    }
}
