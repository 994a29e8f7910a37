package rapier.server.spi

class TlsRecordsTest extends munit.FunSuite:
  // A record of `kind` with `length` bytes of payload, TLS 1.2's version in its header
  private def record(kind: Int, length: Int): Array[Byte] =
    Array[Byte](kind.toByte, 3, 3, (length >>> 8).toByte, length.toByte) ++ new Array[Byte](length)

  private val ClientHello = record(22, 200)
  private val ChangeCipherSpec = record(20, 1)
  private val Finished = record(22, 40)
  private val Data = record(23, 300)

  private def renegotiates(records: TlsRecords, bytes: Array[Byte], pieces: Int = 1): Boolean =
    val step = math.max(1, bytes.length / pieces)
    bytes.indices.by(step).exists(at => records.feed(bytes, at, math.min(at + step, bytes.length)))

  test("TLS 1.2: a handshake record after the handshake is a renegotiation, however the bytes are cut"):
    for pieces <- List(1, 3, 500) do
      val records = TlsRecords()
      assert(!renegotiates(records, ClientHello ++ ChangeCipherSpec ++ Finished ++ Data ++ Data, pieces), pieces)
      assert(renegotiates(records, Data ++ ClientHello, pieces), pieces)

  test("TLS 1.3: application data after the client's flight, a second ClientHello after a retry, no renegotiation"):
    val records = TlsRecords()
    assert(!renegotiates(records, ClientHello ++ ChangeCipherSpec ++ Data ++ Data ++ record(21, 2)))
    val retried = TlsRecords()
    assert(!renegotiates(retried, ClientHello ++ ChangeCipherSpec ++ ClientHello ++ Data ++ Data))

  test("put in after the handshake, the first handshake record is one; bytes that are no record leave it blind"):
    assert(renegotiates(TlsRecords(afterHandshake = true), Data ++ ClientHello))
    val blind = TlsRecords(afterHandshake = true)
    assert(!renegotiates(blind, Array[Byte](99, 1, 2, 3, 4, 5, 6) ++ ClientHello))
