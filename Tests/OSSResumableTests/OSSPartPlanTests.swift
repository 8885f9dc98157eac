import OSSResumable
import Testing

@Suite("Part plans")
struct OSSPartPlanTests {
    @Test func smallPreferredPartSizeIsRaisedToTheMinimum() throws {
        let plan = try OSSPartPlan.upload(fileSize: 1_000_000, preferredPartSize: 1000)
        #expect(plan.partSize == 102_400)
        #expect(plan.partCount == 10)
        #expect(plan.parts.last == OSSPart(number: 10, offset: 921_600, length: 78_400))
    }

    @Test func partsCoverTheFileExactlyOnce() throws {
        for size: Int64 in [1, 102_399, 102_400, 102_401, 204_800, 1_048_577] {
            let plan = try OSSPartPlan.upload(fileSize: size, preferredPartSize: 102_400)
            var next: Int64 = 0
            for (index, part) in plan.parts.enumerated() {
                #expect(part.number == index + 1)
                #expect(part.offset == next)
                #expect(part.length > 0)
                #expect(part.length <= plan.partSize)
                next = part.end
            }
            #expect(next == size)
            #expect(plan.totalLength == size)
        }
    }

    @Test func exactMultipleHasNoEmptyTail() throws {
        let plan = try OSSPartPlan.upload(fileSize: 3 * 102_400, preferredPartSize: 102_400)
        #expect(plan.partCount == 3)
        #expect(plan.parts.map(\.length) == [102_400, 102_400, 102_400])
    }

    @Test func emptyFileIsOneEmptyPart() throws {
        let plan = try OSSPartPlan.upload(fileSize: 0, preferredPartSize: 1 << 20)
        #expect(plan.parts == [OSSPart(number: 1, offset: 0, length: 0)])
    }

    @Test func partSizeDoublesWhenMoreThanTenThousandPartsWouldBeNeeded() throws {
        // 10,000 parts of 100 KiB hold 1,024,000,000 bytes; one byte more needs a bigger part.
        let fits = try OSSPartPlan.upload(fileSize: 1_024_000_000, preferredPartSize: 102_400)
        #expect(fits.partSize == 102_400)
        #expect(fits.partCount == 10_000)
        let grown = try OSSPartPlan.upload(fileSize: 1_024_000_001, preferredPartSize: 102_400)
        #expect(grown.partSize == 204_800)
        #expect(grown.partCount == 5001)
        let huge = try OSSPartPlan.upload(fileSize: 40 * (1 << 40), preferredPartSize: 102_400)
        #expect(huge.partCount <= 10_000)
        #expect(huge.partSize <= 5 * (1 << 30))
    }

    @Test func tooLargeForTheLimitsIsAnError() {
        #expect(throws: OSSResumableError.self) {
            _ = try OSSPartPlan.upload(fileSize: 10_000 * 5 * (1 << 30) + 1, preferredPartSize: 102_400)
        }
        #expect(throws: OSSResumableError.self) {
            _ = try OSSPartPlan.upload(fileSize: -1, preferredPartSize: 102_400)
        }
        #expect(throws: OSSResumableError.self) {
            _ = try OSSPartPlan.upload(fileSize: 10, preferredPartSize: 0)
        }
    }

    @Test func partNumbersOutsideThePlanAreNil() throws {
        let plan = try OSSPartPlan.upload(fileSize: 300_000, preferredPartSize: 102_400)
        #expect(plan.part(number: 0) == nil)
        #expect(plan.part(number: 4) == nil)
        #expect(plan.part(number: 3) == OSSPart(number: 3, offset: 204_800, length: 95_200))
    }

    @Test func recordedPartSizeIsReusedAndChecked() throws {
        let plan = try OSSPartPlan(span: .whole(size: 1_000_000), recordedPartSize: 204_800, limits: .upload)
        #expect(plan.partSize == 204_800)
        #expect(plan.partCount == 5)
        #expect(throws: OSSResumableError.self) {
            _ = try OSSPartPlan(span: .whole(size: 1_000_000), recordedPartSize: 1000, limits: .upload)
        }
        #expect(throws: OSSResumableError.self) {
            _ = try OSSPartPlan(span: .whole(size: 2_000_000_000), recordedPartSize: 102_400, limits: .upload)
        }
    }

    @Test func downloadPlansCoverTheRangeAndAnEmptyRangeHasNoParts() throws {
        let range = try OSSByteRange(start: 1000, length: 200_000)
        let plan = try OSSPartPlan.download(range: range, preferredPartSize: 65_536)
        #expect(plan.parts.first == OSSPart(number: 1, offset: 1000, length: 65_536))
        #expect(plan.parts.last?.end == 201_000)
        #expect(plan.partCount == 4)
        let empty = try OSSPartPlan.download(range: .whole(size: 0), preferredPartSize: 65_536)
        #expect(empty.parts.isEmpty)
        // The download limit is 100,000 parts, not 10,000.
        let big = try OSSPartPlan.download(range: .whole(size: 100_000 * 65_536), preferredPartSize: 65_536)
        #expect(big.partSize == 65_536)
        #expect(big.partCount == 100_000)
    }

    @Test func rangesResolveWithStandardBehaviour() throws {
        #expect(try OSSByteRange.resolve(first: 0, last: nil, objectSize: 1000) == OSSByteRange(start: 0, length: 1000))
        #expect(try OSSByteRange.resolve(first: 500, last: 2000, objectSize: 1000) == OSSByteRange(start: 500, length: 500))
        #expect(try OSSByteRange.resolve(first: 999, last: 999, objectSize: 1000) == OSSByteRange(start: 999, length: 1))
        #expect(try OSSByteRange.resolve(first: 0, last: nil, objectSize: 0).isEmpty)
        #expect(throws: OSSResumableError.self) { _ = try OSSByteRange.resolve(first: 1000, last: nil, objectSize: 1000) }
        #expect(throws: OSSResumableError.self) { _ = try OSSByteRange.resolve(first: 5, last: 4, objectSize: 1000) }
        #expect(throws: OSSResumableError.self) { _ = try OSSByteRange.resolve(first: -1, last: nil, objectSize: 1000) }
        #expect(throws: OSSResumableError.self) { _ = try OSSByteRange(start: Int64.max, length: 1) }
        #expect(try OSSByteRange(start: 10, length: 5).httpRangeHeader == "bytes=10-14")
        #expect(OSSByteRange.whole(size: 0).httpRangeHeader == nil)
    }
}
