package rapier.perf

import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.{CodecMakerConfig, JsonCodecMaker}

/** When and how a run was made. */
final case class Meta(
    started: String,
    finished: String,
    command: String,
    machine: MachineFacts,
    durationSeconds: Int,
    warmupSeconds: Int,
    rounds: Int,
    users: List[Int],
    jvmOptions: List[String],
    target: Option[String],
    fixedRate: Option[String] = None,
    profiled: Boolean = false,
    starts: Int = 1,
    studies: Option[String] = None
)

/** Everything a run produced: `results.json`, and the input of `--baseline` and `./perf report`. */
final case class RunResults(
    meta: Meta,
    rows: List[Row],
    summaries: List[Summary],
    peers: List[PeerComparison] = Nil
)

object RunResults:
  given codec: JsonValueCodec[RunResults] = JsonCodecMaker.make(CodecMakerConfig.withTransientNone(false))

  def toJson(r: RunResults): Array[Byte] = writeToArray(r, WriterConfig.withIndentionStep(2))

  /** A `results.json`, or one gzipped as the runs under `docs/perf` are committed (`results.json.gz`). */
  def read(file: java.nio.file.Path): Either[String, RunResults] =
    val bytes = java.nio.file.Files.readAllBytes(file)
    val gzipped = bytes.length > 2 && bytes(0) == 0x1f.toByte && bytes(1) == 0x8b.toByte
    fromJson(
      if gzipped then java.util.zip.GZIPInputStream(java.io.ByteArrayInputStream(bytes)).readAllBytes() else bytes
    )

  def fromJson(bytes: Array[Byte]): Either[String, RunResults] =
    try Right(readFromArray[RunResults](bytes))
    catch case e: JsonReaderException => Left(s"not a results.json of this suite: ${e.getMessage}")

  /** The results of `rows`: summaries over rounds against each server's twin, and Rapier against its peers. */
  def of(meta: Meta, rows: List[Row]): RunResults =
    RunResults(meta, rows, Summaries.of(rows, Catalogue.twinOf), Summaries.peers(rows, Catalogue.peers))
