import Foundation

/// Valid OSS response documents (oss-protocol.md §6), the seeds the XML fuzzers mutate.
enum XMLGoldenDocuments {
    static let listParts = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ListPartsResult>
          <Bucket>bkt</Bucket>
          <EncodingType>url</EncodingType>
          <Key>dir%2Fbig%20file.bin</Key>
          <UploadId>0004B999EF5A239BB9138C6227D69F95</UploadId>
          <PartNumberMarker>0</PartNumberMarker>
          <NextPartNumberMarker>2</NextPartNumberMarker>
          <MaxParts>1000</MaxParts>
          <IsTruncated>false</IsTruncated>
          <Part>
            <PartNumber>1</PartNumber>
            <LastModified>2024-01-15T08:30:45.000Z</LastModified>
            <ETag>"3349DC700140D7F86A0784842780A8C6"</ETag>
            <HashCrc64ecma>11219760133186541106</HashCrc64ecma>
            <Size>102400</Size>
          </Part>
          <Part>
            <PartNumber>2</PartNumber>
            <LastModified>2024-01-15T08:30:46.000Z</LastModified>
            <ETag>"7265F4D211B56873A381D321F586E4A9"</ETag>
            <HashCrc64ecma>42</HashCrc64ecma>
            <Size>1024</Size>
          </Part>
        </ListPartsResult>
        """

    static let listObjectsV2 = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ListBucketResult>
          <Name>bkt</Name>
          <Prefix>photos%2F</Prefix>
          <MaxKeys>100</MaxKeys>
          <Delimiter>%2F</Delimiter>
          <StartAfter>photos%2Fa</StartAfter>
          <EncodingType>url</EncodingType>
          <IsTruncated>true</IsTruncated>
          <KeyCount>2</KeyCount>
          <NextContinuationToken>CgJiYw--</NextContinuationToken>
          <Contents>
            <Key>photos%2F2024%2Fcat%20%E7%8C%AB.jpg</Key>
            <LastModified>2024-01-15T08:30:45.000Z</LastModified>
            <ETag>"5B3C1A2E053D763E1B002CC607C5A0FE"</ETag>
            <Type>Normal</Type>
            <Size>344606</Size>
            <StorageClass>Standard</StorageClass>
          </Contents>
          <CommonPrefixes>
            <Prefix>photos%2F2025%2F</Prefix>
          </CommonPrefixes>
        </ListBucketResult>
        """

    static let listMultipartUploads = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ListMultipartUploadsResult>
          <Bucket>bkt</Bucket>
          <EncodingType>url</EncodingType>
          <KeyMarker></KeyMarker>
          <UploadIdMarker></UploadIdMarker>
          <NextKeyMarker>obj%2Fb</NextKeyMarker>
          <NextUploadIdMarker>0004B99B8E707874FC2D692FA5D77D3F</NextUploadIdMarker>
          <Delimiter>%2F</Delimiter>
          <Prefix>obj%2F</Prefix>
          <MaxUploads>1000</MaxUploads>
          <IsTruncated>false</IsTruncated>
          <Upload>
            <Key>obj%2Fa</Key>
            <UploadId>0004B999EF518A1FE585B0C9360DC4C8</UploadId>
            <Initiated>2024-01-15T08:30:45.000Z</Initiated>
          </Upload>
          <CommonPrefixes><Prefix>obj%2Fdir%2F</Prefix></CommonPrefixes>
        </ListMultipartUploadsResult>
        """

    static let initiate = """
        <?xml version="1.0" encoding="UTF-8"?>
        <InitiateMultipartUploadResult>
          <Bucket>bkt</Bucket>
          <Key>multipart%2Fdata.bin</Key>
          <UploadId>0004B9894A22E5B1888A1E29F8236E2D</UploadId>
          <EncodingType>url</EncodingType>
        </InitiateMultipartUploadResult>
        """

    static let complete = """
        <?xml version="1.0" encoding="UTF-8"?>
        <CompleteMultipartUploadResult>
          <EncodingType>url</EncodingType>
          <Location>http://bkt.oss-cn-hangzhou.aliyuncs.com/multipart.data</Location>
          <Bucket>bkt</Bucket>
          <Key>multipart%2Fdata.bin</Key>
          <ETag>"B864DB6A936D376F9F8D3ED3BBE540DD-3"</ETag>
        </CompleteMultipartUploadResult>
        """

    static let error = """
        <?xml version="1.0" encoding="UTF-8"?>
        <Error>
          <Code>NoSuchKey</Code>
          <Message>The specified key does not exist.</Message>
          <RequestId>65A4EC1D0B1C2D3E4F506172</RequestId>
          <HostId>bkt.oss-cn-hangzhou.aliyuncs.com</HostId>
          <Key>photos/2024/cat.jpg</Key>
          <EC>0026-00000001</EC>
        </Error>
        """

    static let all: [(name: String, text: String)] = [
        ("ListParts", listParts), ("ListObjectsV2", listObjectsV2), ("ListMultipartUploads", listMultipartUploads),
        ("InitiateMultipartUpload", initiate), ("CompleteMultipartUpload", complete), ("Error", error),
    ]

    /// The XML external-entity probe, in the forms a naive pre-check could miss.
    static let externalEntityProbes: [[UInt8]] = {
        let classic = """
            <?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><Error><Code>&e;</Code></Error>
            """
        let lower = classic.replacingOccurrences(of: "DOCTYPE", with: "doctype")
            .replacingOccurrences(of: "ENTITY", with: "entity")
        let parameter = """
            <?xml version="1.0"?><!DOCTYPE x [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]><Error><Code>x</Code></Error>
            """
        let externalSubset = """
            <?xml version="1.0"?><!DOCTYPE Error SYSTEM "file:///etc/passwd"><Error><Code>x</Code></Error>
            """
        let laughs = """
            <?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\
            <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]><Error><Code>&d;</Code></Error>
            """
        var probes: [[UInt8]] = [classic, lower, parameter, externalSubset, laughs].map { Array($0.utf8) }
        // UTF-16 (with a byte-order mark): the "<!DOCTYPE" bytes are interleaved with zeros.
        for text in [classic, externalSubset, laughs] {
            let utf16le = text.replacingOccurrences(of: "<?xml version=\"1.0\"?>", with: "<?xml version=\"1.0\" encoding=\"UTF-16\"?>")
            var le: [UInt8] = [0xFF, 0xFE]
            var be: [UInt8] = [0xFE, 0xFF]
            for unit in utf16le.utf16 {
                le += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
                be += [UInt8(unit >> 8), UInt8(unit & 0xFF)]
            }
            probes.append(le)
            probes.append(be)
        }
        return probes
    }()
}
