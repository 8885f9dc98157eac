import AliyunOSS
import Testing

@testable import oss

/// The `oss` exit-status table: every SDK client error code has an explicit row, and the rows match the
/// statuses `oss --help` documents.
@Suite("oss exit-status table")
struct ExitStatusTableTests {
    static let expected: [OSSClientErrorCode: Int32] = [
        .networkError: 3, .networkingFailWithResponseCode0: 3,
        .invalidCRC: 4,
        .cannotResumeUpload: 5, .cannotResumeDownload: 5, .objectChanged: 5, .fileChanged: 5, .batchSourceNeeded: 5,
        .transferInUse: 6,
        .taskCancelled: 130, .taskPaused: 130,
        .signFailed: 2, .fileCantWrite: 2, .fileCantRead: 2, .invalidArgument: 2, .nilUploadid: 2,
        .exceptionCaught: 2, .notKnown: 2, .noSpaceLeft: 2, .connectionNotTrusted: 2, .batchStopped: 2,
        .clientShutDown: 2, .encryptedObject: 2,
    ]

    @Test(arguments: OSSClientErrorCode.allKnown)
    func everyCodeHasItsDocumentedStatus(_ code: OSSClientErrorCode) throws {
        let row = try #require(ExitStatus.clientErrorTable[code], "no exit-status row for \(code)")
        #expect(row.rawValue == Self.expected[code], "\(code)")
        let failure = CLIFailure(OSSClientError(code, "boom"))
        #expect(failure.status == row)
        #expect(failure.message.hasPrefix("\(code.rawValue): "))
    }

    @Test func theTableCoversExactlyTheKnownCodes() {
        #expect(Set(ExitStatus.clientErrorTable.keys) == Set(OSSClientErrorCode.allKnown))
        #expect(Set(Self.expected.keys) == Set(OSSClientErrorCode.allKnown))
    }

    @Test func theHelpTextDocumentsEveryStatus() {
        let help = ExitStatus.helpText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for status in Set(ExitStatus.clientErrorTable.values) {
            #expect(help.contains("\(status.rawValue) "), "status \(status.rawValue) missing from oss --help")
        }
        #expect(help.contains("5 a transfer cannot continue from its checkpoint (the local file or the object changed"))
    }

    @Test func anUnknownCodeIsABadInput() {
        #expect(ExitStatus(clientErrorCode: OSSClientErrorCode(rawValue: "SomethingNew")) == .clientError)
    }
}
