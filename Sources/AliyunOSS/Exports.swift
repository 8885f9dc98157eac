// One import is enough for users: `import AliyunOSS` also brings the credential, signature-version and CRC types.
@_exported import OSSCRC64
@_exported import OSSSigning
