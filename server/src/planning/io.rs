//! Export and import: a whole schedule as JSON (the model's own wire format), and its
//! bars as CSV for spreadsheets.
//!
//! Exports are redacted for the caller like every read: an export handed around must
//! not carry e-mails or absence reasons its reader could not see. Imports are checked
//! before anything is stored: JSON with `validate_schedule` (every invariant the
//! commands keep, so the new schedule can be changed safely), CSV rows by turning them
//! into `add_period` commands applied as one atomic write, with the line of the file
//! in every error.
//!
//! CSV is read and written by the `csv` crate (RFC 4180: quoted fields with doubled
//! quotes, separators and line breaks inside quotes); a file from a French
//! spreadsheet, which separates with ";", is recognised by its header. An export
//! neutralises, by default, the text cells a spreadsheet would run as a formula
//! (OWASP's rule: a leading `'` before `=`, `+`, `-`, `@`, a tab or a carriage
//! return); the numbers and dates it writes itself are never changed, so a spreadsheet
//! still reads them as numbers and dates. `formulas: "keep"` writes every cell as it
//! is, for an exact round trip.

use crate::planning::Code;
use palmaplan_model::command::{self, Command};
use palmaplan_model::filter::fold;
use palmaplan_model::{BarId, Date, Lang, RowId, Schedule, text};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::people::{quoted, write_on_state};
use super::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, tool};

/// The largest JSON an import accepts, in bytes.
pub(super) const MAX_IMPORT_BYTES: usize = 16 * 1024 * 1024;
/// The largest CSV `import_csv_periods` accepts, in bytes, and its most data lines.
pub(super) const MAX_CSV_BYTES: usize = 4 * 1024 * 1024;
pub(super) const MAX_CSV_ROWS: usize = 20_000;

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "export_schedule",
            "Export \"json\" (whole schedule, for import_schedule) or \"csv\" (bars), without private data you may not see. CSV cells starting = + - @ get a leading ' unless formulas: \"keep\".",
            Access::Read,
            export_schedule,
        )
        .returns::<Exported>(),
        tool(
            "import_schedule",
            "Create a schedule you own from PalmaPlan JSON (export_schedule's). Invalid data creates nothing.",
            Access::Write,
            import_schedule,
        )
        .returns::<Imported>()
        .on_no_schedule()
        .creates_schedule(),
        tool(
            "import_csv_periods",
            "Add bars to a row from CSV with header label,start,end[,color] (\",\" or \";\"). All lines or none.",
            Access::Write,
            import_csv_periods,
        )
        .returns::<CsvImported>(),
    ]
}

// ---------------------------------------------------------------------------------
// CSV

/// The header of the bars export.
/// The columns, the older ones first (a spreadsheet that reads them by position keeps
/// working): progress in percent, then the actual start and finish (empty when none).
const CSV_HEADER: &str =
    "id,row,group,label,start,end,color,member,progress,actual_start,actual_finish";

/// What an export does with text cells that a spreadsheet would run as a formula.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Formulas {
    /// A text cell starting with =, +, -, @, a tab or a carriage return gets a leading
    /// ' so that a spreadsheet shows it instead of running it (the default).
    #[default]
    Neutralise,
    /// Every cell exactly as in the schedule: for an exact round trip.
    Keep,
}

/// The first characters that make a spreadsheet read a cell as a formula (or, for a
/// tab and a carriage return, hide one behind blank space).
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// CSV being written, one record at a time, with the count of neutralised cells.
struct CsvOut {
    writer: csv::Writer<Vec<u8>>,
    formulas: Formulas,
    neutralised: usize,
}

impl CsvOut {
    fn new(formulas: Formulas) -> CsvOut {
        CsvOut {
            writer: csv::WriterBuilder::new()
                .terminator(csv::Terminator::Any(b'\n'))
                .from_writer(Vec::new()),
            formulas,
            neutralised: 0,
        }
    }

    /// A text cell as it is written: behind a `'` when it would be a formula.
    fn text(&mut self, v: &str) -> String {
        if self.formulas == Formulas::Neutralise && v.starts_with(FORMULA_STARTS) {
            self.neutralised += 1;
            format!("'{v}")
        } else {
            v.to_owned()
        }
    }

    fn record<I: AsRef<[u8]>>(&mut self, fields: impl IntoIterator<Item = I>) -> csv::Result<()> {
        self.writer.write_record(fields)
    }

    /// The text and how many cells were neutralised.
    fn finish(self) -> Result<(String, usize), String> {
        let bytes = self.writer.into_inner().map_err(|e| e.to_string())?;
        let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
        Ok((text, self.neutralised))
    }
}

/// A schedule's bars as CSV, in display order (by row, then start), and how many
/// text cells were neutralised.
fn bars_csv(s: &Schedule, formulas: Formulas) -> Result<(String, usize), String> {
    let positions = s.row_positions();
    let pos = |r: RowId| {
        positions
            .binary_search_by(|(id, _)| id.cmp(&r))
            .map_or(usize::MAX, |k| positions[k].1)
    };
    let mut bars: Vec<_> = s.bars.iter().collect();
    bars.sort_by_key(|b| (pos(b.row), b.start, b.id));
    let mut out = CsvOut::new(formulas);
    out.record(CSV_HEADER.split(','))
        .map_err(|e| e.to_string())?;
    for b in bars {
        let row = s.row(b.row);
        let group = row.and_then(|r| s.group(r.group)).map_or("", |g| &g.name);
        let member = row
            .and_then(|r| r.member)
            .and_then(|m| s.member(m))
            .map_or("", |m| &m.name);
        let fields = [
            b.id.to_string(),
            out.text(row.map_or("", |r| &r.name)),
            out.text(group),
            out.text(&b.label),
            b.start.to_string(),
            b.end.to_string(),
            out.text(b.color.as_deref().unwrap_or("")),
            out.text(member),
            b.progress.to_string(),
            b.actual_start.map_or_else(String::new, |d| d.to_string()),
            b.actual_finish.map_or_else(String::new, |d| d.to_string()),
        ];
        out.record(&fields).map_err(|e| e.to_string())?;
    }
    out.finish()
}

/// A CSV record and the line it starts on (from 1).
#[derive(Debug, PartialEq, Eq)]
struct Record {
    line: usize,
    fields: Vec<String>,
}

/// Why a CSV text does not read.
#[derive(Debug, PartialEq, Eq)]
enum CsvError {
    /// A quoted field still open at the end of the text (the line of its record).
    Unclosed { line: usize },
}

/// Reads CSV text with separator `sep` (`,` or `;`): records with their starting line;
/// blank lines are skipped, a byte-order mark at the start is ignored. Text after a
/// closing quote joins the field (`"ab"c` reads `abc`, as spreadsheets read it).
fn read_csv(text: &str, sep: u8) -> Result<Vec<Record>, CsvError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let records = parse_csv(text, sep);
    // The reader closes a quote left open at the end of the text without a word; one
    // more line break is where it shows: outside quotes it ends a record (nothing
    // changes), inside it joins the field.
    if let Some((last, at)) = records.last() {
        let tail = format!("{}\n", &text[*at..]);
        if parse_csv(&tail, sep).first().map(|(r, _)| &r.fields) != Some(&last.fields) {
            return Err(CsvError::Unclosed { line: last.line });
        }
    }
    Ok(records.into_iter().map(|(r, _)| r).collect())
}

/// The records of `text` and the byte each starts at.
fn parse_csv(text: &str, sep: u8) -> Vec<(Record, usize)> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(sep)
        .from_reader(text.as_bytes());
    let bytes = text.as_bytes();
    let mut records = Vec::new();
    let mut record = csv::ByteRecord::new();
    // The line of `counted`, a byte before every record read so far.
    let (mut line, mut counted) = (1, 0);
    // Reading from memory: no I/O error can occur, and fields split at ASCII
    // separators of UTF-8 text are UTF-8.
    while reader.read_byte_record(&mut record).unwrap_or(false) {
        let Some(at) = record.position() else {
            continue;
        };
        // The reader's position is where the previous record ended, before the line
        // breaks (and blank lines) it skipped: the record starts after them.
        let mut start = usize::try_from(at.byte()).unwrap_or(0).max(counted);
        while matches!(bytes.get(start), Some(b'\r' | b'\n')) {
            start += 1;
        }
        line += line_breaks(&bytes[counted..start]);
        counted = start;
        records.push((
            Record {
                line,
                fields: record
                    .iter()
                    .map(|f| String::from_utf8_lossy(f).into_owned())
                    .collect(),
            },
            start,
        ));
    }
    records
}

/// How many line breaks `bytes` holds: `\n`, `\r\n` or a lone `\r`, as an editor shows
/// lines.
fn line_breaks(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')))
        .count()
}

/// The separator of a CSV text, from its first line: ";" when it has some and no ","
/// (a French spreadsheet's export), "," otherwise.
fn separator(text: &str) -> u8 {
    let first = text.lines().next().unwrap_or("");
    if first.contains(';') && !first.contains(',') {
        b';'
    } else {
        b','
    }
}

// ---------------------------------------------------------------------------------
// Export

/// The export formats.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Format {
    /// The whole schedule in PalmaPlan's JSON.
    Json,
    /// The bars, one per line.
    Csv,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Export {
    schedule: ScheduleRef,
    /// "json" (whole schedule) or "csv" (bars).
    format: Format,
    /// CSV: "neutralise" (default) or "keep" (exact round trip).
    #[serde(default)]
    formulas: Formulas,
}

/// `export_schedule`'s result: the JSON fields with "json", the CSV ones with "csv".
#[derive(Debug, Serialize, JsonSchema)]
struct Exported {
    schedule_id: i64,
    rank: i64,
    format: Format,
    /// JSON: the export's length in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes: Option<usize>,
    /// JSON: the whole schedule, as import_schedule reads it.
    // Left untyped (an object): the schedule's own schema would put the whole model in
    // the catalogue, and import_schedule checks it when it comes back.
    #[serde(skip_serializing_if = "Option::is_none")]
    schedule: Option<serde_json::Map<String, Value>>,
    /// CSV: how many bars (lines after the header).
    #[serde(skip_serializing_if = "Option::is_none")]
    bars: Option<usize>,
    /// CSV: the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    csv: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    formulas: Option<Formulas>,
    /// CSV: how many cells got a leading '.
    #[serde(skip_serializing_if = "Option::is_none")]
    neutralised_cells: Option<usize>,
}

async fn export_schedule(ctx: Ctx, p: Export) -> Result<Reply, Refusal> {
    let o = ctx.open_redacted(&p.schedule).await?;
    let s = &o.state;
    let redacted = if o.viewer.sees_all() {
        String::new()
    } else {
        ctx.tr(
            " Les e-mails des membres et les motifs d'absence que vous ne pouvez pas voir en sont retirés.",
            " Members' e-mails and absence reasons you may not see are left out.",
        )
    };
    match p.format {
        Format::Json => {
            let value = serde_json::to_value(s).map_err(|e| {
                tracing::error!(error = %e, "schedule serialisation");
                Refusal::new(
                    Code::Storage,
                    ctx.tr(
                        "Le planning n'a pas pu être converti en JSON\u{202f}; rien n'a été exporté.",
                        "The schedule could not be turned into JSON; nothing was exported.",
                    ),
                )
            })?;
            let json = value.to_string();
            let header = ctx.tr(
                format!("Export JSON de «\u{a0}{}\u{a0}» (id {}, rang {}, {} octets)\u{202f}; import_schedule le relit.{redacted}", s.name, o.id, o.rank, json.len()),
                format!("JSON export of “{}” (id {}, rank {}, {} bytes); import_schedule reads it back.{redacted}", s.name, o.id, o.rank, json.len()),
            );
            Ok(Reply::ok(
                format!("{header}\n\n{json}"),
                json!(Exported {
                    schedule_id: o.id,
                    rank: o.rank,
                    format: Format::Json,
                    bytes: Some(json.len()),
                    // A schedule serialises as an object: never None.
                    schedule: match value {
                        Value::Object(m) => Some(m),
                        _ => None,
                    },
                    bars: None,
                    csv: None,
                    formulas: None,
                    neutralised_cells: None,
                }),
            ))
        }
        Format::Csv => {
            let (csv, neutralised) = bars_csv(s, p.formulas).map_err(|e| {
                tracing::error!(error = %e, "CSV export");
                Refusal::new(
                    Code::Storage,
                    ctx.tr(
                        "Les blocs n'ont pas pu être écrits en CSV\u{202f}; rien n'a été exporté.",
                        "The bars could not be written as CSV; nothing was exported.",
                    ),
                )
            })?;
            let mut header = ctx.tr(
                format!("Export CSV des {} de «\u{a0}{}\u{a0}» (id {}, rang {}), colonnes {CSV_HEADER}\u{202f}; import_csv_periods relit label, start, end et color.{redacted}", text::count(Lang::Fr, s.bars.len(), "bloc", "blocs"), s.name, o.id, o.rank),
                format!("CSV export of the {} of “{}” (id {}, rank {}), columns {CSV_HEADER}; import_csv_periods reads back label, start, end and color.{redacted}", text::count(Lang::En, s.bars.len(), "bar", "bars"), s.name, o.id, o.rank),
            );
            header.push_str(&neutralised_note(ctx.lang(), neutralised));
            Ok(Reply::ok(
                format!("{header}\n\n{csv}"),
                json!(Exported {
                    schedule_id: o.id,
                    rank: o.rank,
                    format: Format::Csv,
                    bytes: None,
                    schedule: None,
                    bars: Some(s.bars.len()),
                    csv: Some(csv),
                    formulas: Some(p.formulas),
                    neutralised_cells: Some(neutralised),
                }),
            ))
        }
    }
}

/// What an export says of its neutralised cells (nothing when there are none).
fn neutralised_note(lang: Lang, n: usize) -> String {
    match (lang, n) {
        (_, 0) => String::new(),
        (Lang::Fr, 1) => " 1\u{a0}cellule de texte commence par =, +, -, @, une tabulation ou un retour chariot\u{a0}: elle est précédée d'une apostrophe (') pour qu'un tableur ne l'exécute pas comme une formule\u{202f}; «\u{a0}formulas\u{a0}»\u{a0}: «\u{a0}keep\u{a0}» la laisse telle quelle.".into(),
        (Lang::Fr, n) => format!(" {n}\u{a0}cellules de texte commencent par =, +, -, @, une tabulation ou un retour chariot\u{a0}: elles sont précédées d'une apostrophe (') pour qu'un tableur ne les exécute pas comme des formules\u{202f}; «\u{a0}formulas\u{a0}»\u{a0}: «\u{a0}keep\u{a0}» les laisse telles quelles."),
        (Lang::En, 1) => " 1 text cell starts with =, +, -, @, a tab or a carriage return: it gets a leading apostrophe (') so that a spreadsheet does not run it as a formula; \"formulas\": \"keep\" leaves it as it is.".into(),
        (Lang::En, n) => format!(" {n} text cells start with =, +, -, @, a tab or a carriage return: they get a leading apostrophe (') so that a spreadsheet does not run them as formulas; \"formulas\": \"keep\" leaves them as they are."),
    }
}

// ---------------------------------------------------------------------------------
// Import

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Import {
    /// Replaces the JSON's name.
    name: String,
    /// PalmaPlan JSON, as an object or a string.
    #[schemars(extend("anyOf" = [{ "type": "object" }, { "type": "string" }]))]
    json: Value,
}

fn megabytes(n: usize) -> String {
    format!("{:.1}", n as f64 / (1024.0 * 1024.0))
}

fn too_big(ctx: &Ctx, what: &str, size: usize, max: usize) -> Refusal {
    Refusal::new(
        Code::TooLarge,
        ctx.tr(
            format!("{what} fait {} Mo\u{202f}; la limite est {} Mo. Rien n'a été importé\u{a0}: découpez les données en plusieurs parties.", megabytes(size), megabytes(max)),
            format!("The {what} is {} MB; the limit is {} MB. Nothing was imported: split the data into several parts.", megabytes(size), megabytes(max)),
        ),
    )
    .with(json!({ "bytes": size, "max_bytes": max }))
}

/// What is wrong with the JSON, where: serde_json's message said again in the caller's
/// words (see `args::serde_message`), its position given separately.
fn json_problem(e: &serde_json::Error, lang: Lang) -> String {
    use serde_json::error::Category;
    let msg = match e.classify() {
        Category::Syntax => super::tr(lang, "JSON mal formé", "malformed JSON"),
        Category::Eof => super::tr(
            lang,
            "le JSON s'arrête avant la fin",
            "the JSON ends too early",
        ),
        Category::Io | Category::Data => super::args::serde_message(&e.to_string(), lang),
    };
    let (line, column) = (e.line(), e.column());
    match lang {
        Lang::Fr => format!("ligne {line}, colonne {column}\u{a0}: {msg}"),
        Lang::En => format!("line {line}, column {column}: {msg}"),
    }
}

/// How many of each thing a schedule holds.
#[derive(Debug, Serialize, JsonSchema)]
struct Counts {
    groups: usize,
    rows: usize,
    bars: usize,
    milestones: usize,
    links: usize,
    members: usize,
    absences: usize,
}

/// `import_schedule`'s result: the new schedule.
#[derive(Debug, Serialize, JsonSchema)]
struct Imported {
    schedule_id: i64,
    name: String,
    /// Always 0: a new schedule.
    rank: i64,
    counts: Counts,
}

async fn import_schedule(ctx: Ctx, p: Import) -> Result<Reply, Refusal> {
    let name = p.name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "Le nom du planning doit compter de 1 à 200 caractères.",
                "A schedule's name must have 1 to 200 characters.",
            ),
        ));
    }
    let lang = ctx.lang();
    let parsed = match p.json {
        Value::String(text) => {
            if text.len() > MAX_IMPORT_BYTES {
                return Err(too_big(
                    &ctx,
                    &ctx.tr("Le JSON", "JSON"),
                    text.len(),
                    MAX_IMPORT_BYTES,
                ));
            }
            serde_json::from_str::<Schedule>(&text)
        }
        Value::Object(_) => {
            let size = p.json.to_string().len();
            if size > MAX_IMPORT_BYTES {
                return Err(too_big(
                    &ctx,
                    &ctx.tr("Le JSON", "JSON"),
                    size,
                    MAX_IMPORT_BYTES,
                ));
            }
            serde_json::from_value::<Schedule>(p.json)
        }
        _ => {
            return Err(Refusal::new(
                Code::InvalidArguments,
                ctx.tr(
                    "«\u{a0}json\u{a0}» doit être un objet JSON de planning (ou un texte qui en contient un), tel que l'export JSON d'export_schedule.",
                    "“json” must be a schedule as a JSON object (or a string holding one), such as export_schedule's JSON.",
                ),
            ));
        }
    };
    let mut state = parsed.map_err(|e| {
        Refusal::new(
            Code::InvalidSchedule,
            ctx.tr(
                format!("Ce JSON n'est pas un planning PalmaPlan ({}). Rien n'a été importé\u{202f}; partez d'un export JSON d'export_schedule.", json_problem(&e, lang)),
                format!("This JSON is not a PalmaPlan schedule ({}). Nothing was imported; start from an export_schedule JSON export.", json_problem(&e, lang)),
            ),
        )
    })?;
    state.name = name.to_owned();
    command::validate_schedule(&state).map_err(|e| {
        Refusal::new(
            Code::InvalidSchedule,
            ctx.tr(
                format!("{} Rien n'a été importé.", e.message(lang)),
                format!("{} Nothing was imported.", e.message(lang)),
            ),
        )
        .with(json!({ "path": e.path }))
    })?;
    if super::zones::zone(&state.settings.time_zone).is_none() {
        return Err(super::zones::unknown(&ctx, &state.settings.time_zone));
    }
    // Locks name people of the schedule they came from: an imported schedule starts
    // unlocked, its importer its only owner.
    state.locks.clear();
    let id = ctx
        .store()
        .create_schedule(&state, ctx.caller.user_id, ctx.now_ms())
        .await
        .map_err(|e| ctx.db_error(e))?;
    let text = ctx.tr(
        format!(
            "Planning importé (id {id})\u{202f}; vous en êtes propriétaire. {}",
            text::schedule_summary(&state, lang)
        ),
        format!(
            "Schedule imported (id {id}); you own it. {}",
            text::schedule_summary(&state, lang)
        ),
    );
    Ok(Reply::ok(
        text,
        json!(Imported {
            schedule_id: id,
            name: state.name.clone(),
            rank: 0,
            counts: Counts {
                groups: state.groups.len(),
                rows: state.rows.len(),
                bars: state.bars.len(),
                milestones: state.milestones.len(),
                links: state.links.len(),
                members: state.members.len(),
                absences: state.absences.len(),
            },
        }),
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ImportCsv {
    schedule: ScheduleRef,
    /// The row receiving the bars.
    row: u64,
    /// E.g. "label,start,end\nAudit,2026-11-02,2026-11-13".
    csv: String,
}

/// The columns import_csv_periods reads, by position in the header.
struct Columns {
    label: usize,
    start: usize,
    end: usize,
    color: Option<usize>,
    ignored: Vec<String>,
}

/// A header name, folded; French names are accepted too.
fn column_of(name: &str) -> Option<&'static str> {
    match fold(name.trim()).as_str() {
        "label" | "libelle" | "nom" | "name" => Some("label"),
        "start" | "debut" => Some("start"),
        "end" | "fin" => Some("end"),
        "color" | "colour" | "couleur" => Some("color"),
        _ => None,
    }
}

fn csv_error(ctx: &Ctx, line: usize, fr: String, en: String) -> Refusal {
    Refusal::new(
        Code::InvalidCsv,
        ctx.tr(
            format!("CSV, ligne {line}\u{a0}: {fr} Rien n'a été ajouté."),
            format!("CSV, line {line}: {en} Nothing was added."),
        ),
    )
    .with(json!({ "line": line }))
}

fn columns(ctx: &Ctx, header: &Record) -> Result<Columns, Refusal> {
    let (mut label, mut start, mut end, mut color) = (None, None, None, None);
    let mut ignored = Vec::new();
    for (i, name) in header.fields.iter().enumerate() {
        match column_of(name) {
            Some("label") if label.is_none() => label = Some(i),
            Some("start") if start.is_none() => start = Some(i),
            Some("end") if end.is_none() => end = Some(i),
            Some("color") if color.is_none() => color = Some(i),
            _ => ignored.push(name.trim().to_owned()),
        }
    }
    let (Some(label), Some(start), Some(end)) = (label, start, end) else {
        let found = header.fields.join(",");
        return Err(csv_error(
            ctx,
            header.line,
            format!(
                "l'en-tête «\u{a0}{found}\u{a0}» doit nommer les colonnes label, start et end (color en option), par exemple «\u{a0}label,start,end,color\u{a0}»."
            ),
            format!(
                "the header “{found}” must name the columns label, start and end (color optional), e.g. “label,start,end,color”."
            ),
        ));
    };
    Ok(Columns {
        label,
        start,
        end,
        color,
        ignored,
    })
}

/// The commands for the CSV's data lines, each with its line.
fn csv_commands(
    ctx: &Ctx,
    row: RowId,
    records: &[Record],
    cols: &Columns,
) -> Result<Vec<(usize, Command)>, Refusal> {
    let needed = cols.label.max(cols.start).max(cols.end) + 1;
    let mut out = Vec::with_capacity(records.len());
    for r in records {
        if r.fields.len() < needed {
            return Err(csv_error(
                ctx,
                r.line,
                format!(
                    "{}, il en faut au moins {needed} d'après l'en-tête.",
                    text::count(Lang::Fr, r.fields.len(), "champ", "champs")
                ),
                format!(
                    "{}, the header needs at least {needed}.",
                    text::count(Lang::En, r.fields.len(), "field", "fields")
                ),
            ));
        }
        let date = |field: &str, i: usize| -> Result<Date, Refusal> {
            let v = r.fields[i].trim();
            v.parse().map_err(|_| {
                csv_error(
                    ctx,
                    r.line,
                    format!("{field} «\u{a0}{v}\u{a0}» n'est pas une date\u{202f}; écrivez AAAA-MM-JJ, par exemple 2026-11-30."),
                    format!("{field} “{v}” is not a date; write YYYY-MM-DD, e.g. 2026-11-30."),
                )
            })
        };
        let start = date("start", cols.start)?;
        let end = date("end", cols.end)?;
        let color = cols
            .color
            .and_then(|i| r.fields.get(i))
            .map(|c| c.trim().to_owned())
            .filter(|c| !c.is_empty());
        out.push((
            r.line,
            Command::AddPeriod {
                id: None,
                row,
                label: unneutralised(&r.fields[cols.label]),
                start,
                end,
                color,
                notes: None,
                pin: None,
            },
        ));
    }
    Ok(out)
}

/// A label as it was before an export neutralised it: the `'` an export puts before a
/// cell a spreadsheet would run as a formula is taken off again, so an exported file
/// imports back exactly. (A label that itself begins with `'` and a formula sign loses
/// that quote: what the export could not tell apart either.)
fn unneutralised(label: &str) -> String {
    match label.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA_STARTS) => rest.to_owned(),
        _ => label.to_owned(),
    }
}

/// `import_csv_periods`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct CsvImported {
    schedule_id: i64,
    rank: i64,
    /// How many bars were added.
    added: usize,
    /// Their ids (the first 100).
    bars: Vec<BarId>,
    /// Header columns other than label, start, end, color.
    ignored_columns: Vec<String>,
}

async fn import_csv_periods(ctx: Ctx, p: ImportCsv) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    if p.csv.len() > MAX_CSV_BYTES {
        return Err(too_big(
            &ctx,
            &ctx.tr("Le CSV", "CSV"),
            p.csv.len(),
            MAX_CSV_BYTES,
        ));
    }
    let records = read_csv(&p.csv, separator(&p.csv)).map_err(|e| match e {
        CsvError::Unclosed { line } => csv_error(
            &ctx,
            line,
            "un guillemet ouvert n'est jamais fermé. Fermez le champ par \" (un guillemet dans un champ s'écrit \"\").".into(),
            "a quote is opened and never closed. Close the field with \" (a quote inside a field is written \"\").".into(),
        ),
    })?;
    let Some((header, data)) = records.split_first() else {
        return Err(csv_error(
            &ctx,
            1,
            "le CSV est vide. Donnez un en-tête label,start,end puis une ligne par bloc.".into(),
            "the CSV is empty. Give a header label,start,end then one line per bar.".into(),
        ));
    };
    let cols = columns(&ctx, header)?;
    if data.is_empty() {
        return Err(csv_error(
            &ctx,
            header.line,
            "seulement un en-tête, aucun bloc. Ajoutez une ligne par bloc sous l'en-tête.".into(),
            "a header only, no bar. Add one line per bar under the header.".into(),
        ));
    }
    if data.len() > MAX_CSV_ROWS {
        return Err(Refusal::new(
            Code::TooLarge,
            ctx.tr(
                format!("Le CSV a {} lignes de blocs\u{202f}; la limite est {MAX_CSV_ROWS} par appel. Rien n'a été ajouté\u{a0}: découpez-le.", data.len()),
                format!("The CSV has {} bar lines; the limit is {MAX_CSV_ROWS} per call. Nothing was added: split it.", data.len()),
            ),
        ));
    }
    let row = RowId(p.row);
    let lines = csv_commands(&ctx, row, data, &cols)?;
    let commands: Vec<Command> = lines.iter().map(|(_, c)| c.clone()).collect();
    let lang = ctx.lang();
    let (wrote, _, row_name) = write_on_state(&ctx, id, |s| {
        let Some(r) = s.row(row) else {
            return Err(Refusal::new(
                Code::RowNotFound,
                ctx.tr(
                    format!("Aucune ligne d'id {} dans «\u{a0}{}\u{a0}». list_rows donne les lignes et leurs ids.", p.row, s.name),
                    format!("No row with id {} in “{}”. list_rows gives the rows and their ids.", p.row, s.name),
                ),
            ));
        };
        // A dry run names the faulty line; the write below applies the same commands
        // to the same state (same rank), so it succeeds.
        if let Err(e) = command::apply(s, &commands) {
            let line = lines.get(e.command).map_or(0, |(l, _)| *l);
            return Err(csv_error(
                &ctx,
                line,
                format!("{}\u{a0}: {}", e.field, e.problem.message(Lang::Fr)),
                format!("{}: {}", e.field, e.problem.message(Lang::En)),
            ));
        }
        Ok((commands.clone(), r.name.clone()))
    })
    .await?;
    let ids: Vec<BarId> = wrote
        .applied
        .iter()
        .filter_map(|c| match c {
            Command::AddPeriod { id, .. } => *id,
            _ => None,
        })
        .collect();
    let range = match (ids.first(), ids.last()) {
        (Some(a), Some(b)) if a != b => format!("{a}–{b}"),
        (Some(a), _) => a.to_string(),
        _ => String::new(),
    };
    let mut text = ctx.tr(
        format!(
            "{} à la ligne {} (ids {range})\u{202f}; rang {}.",
            text::count(Lang::Fr, ids.len(), "bloc ajouté", "blocs ajoutés"),
            quoted(lang, &row_name),
            wrote.rank
        ),
        format!(
            "{} added to row {} (ids {range}); rank {}.",
            text::count(Lang::En, ids.len(), "bar", "bars"),
            quoted(lang, &row_name),
            wrote.rank
        ),
    );
    if !cols.ignored.is_empty() {
        text.push_str(&ctx.tr(
            format!(" Colonnes ignorées\u{a0}: {}.", cols.ignored.join(", ")),
            format!(" Columns ignored: {}.", cols.ignored.join(", ")),
        ));
    }
    Ok(Reply::ok(
        text,
        json!(CsvImported {
            schedule_id: id,
            rank: wrote.rank,
            added: ids.len(),
            bars: ids.iter().take(100).copied().collect(),
            ignored_columns: cols.ignored,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(line: usize, fields: &[&str]) -> Record {
        Record {
            line,
            fields: fields.iter().map(|f| (*f).to_owned()).collect(),
        }
    }

    /// One record through the export's writer.
    fn written(fields: &[&str], formulas: Formulas) -> (String, usize) {
        let mut out = CsvOut::new(formulas);
        let cells: Vec<String> = fields.iter().map(|f| out.text(f)).collect();
        out.record(&cells).unwrap();
        out.finish().unwrap()
    }

    #[test]
    fn fields_are_quoted_only_when_needed() {
        let one = |v: &str| written(&[v], Formulas::Keep).0;
        assert_eq!(one("plain"), "plain\n");
        assert_eq!(one("a,b"), "\"a,b\"\n");
        assert_eq!(one("say \"hi\""), "\"say \"\"hi\"\"\"\n");
        assert_eq!(one("two\nlines"), "\"two\nlines\"\n");
        assert_eq!(one("cr\rhere"), "\"cr\rhere\"\n");
        assert_eq!(
            written(&["a", "", "b"], Formulas::Keep).0,
            "a,,b\n",
            "empty cells stay bare"
        );
    }

    #[test]
    fn text_cells_that_would_be_formulas_are_neutralised() {
        let (text, n) = written(
            &[
                "=SUM(A1:A9)",
                "+33 6",
                "-5",
                "@cmd",
                "\tx",
                "\ry",
                "a=b",
                " =x",
                "'",
                "",
            ],
            Formulas::Neutralise,
        );
        assert_eq!(n, 6);
        assert_eq!(
            text,
            "'=SUM(A1:A9),'+33 6,'-5,'@cmd,'\tx,\"'\ry\",a=b, =x,',\n"
        );
        let (text, n) = written(&["=SUM(A1:A9)", "-5"], Formulas::Keep);
        assert_eq!((text.as_str(), n), ("=SUM(A1:A9),-5\n", 0));
        // Numbers and dates the export writes itself are never text cells.
        let mut s = palmaplan_model::demo::s4hana_migration();
        s.bars[0].label = "=1+1".into();
        let (csv, n) = bars_csv(&s, Formulas::Neutralise).unwrap();
        assert_eq!(n, 1);
        let records = read_csv(&csv, b',').unwrap();
        let bar = records
            .iter()
            .find(|r| r.fields[0] == s.bars[0].id.to_string())
            .unwrap();
        assert_eq!(bar.fields[3], "'=1+1");
        assert_eq!(bar.fields[4], s.bars[0].start.to_string());
    }

    #[test]
    fn the_note_counts_neutralised_cells() {
        assert_eq!(neutralised_note(Lang::Fr, 0), "");
        assert!(
            neutralised_note(Lang::Fr, 1).starts_with(" 1\u{a0}cellule de texte commence par"),
            "{}",
            neutralised_note(Lang::Fr, 1)
        );
        assert!(
            neutralised_note(Lang::Fr, 1).ends_with("«\u{a0}keep\u{a0}» la laisse telle quelle.")
        );
        assert!(
            neutralised_note(Lang::Fr, 3).starts_with(" 3\u{a0}cellules de texte commencent par")
        );
        assert!(
            neutralised_note(Lang::Fr, 3)
                .contains("formules\u{202f}; «\u{a0}formulas\u{a0}»\u{a0}:")
        );
        assert!(neutralised_note(Lang::En, 1).starts_with(" 1 text cell starts with"));
        assert!(
            neutralised_note(Lang::En, 2)
                .ends_with("\"formulas\": \"keep\" leaves them as they are.")
        );
    }

    #[test]
    fn reads_quotes_separators_and_line_breaks() {
        let text = "\u{feff}label,start\r\n\"a, \"\"b\"\"\",x\n\n\"multi\nline\",y\nlast,\"\"";
        assert_eq!(
            read_csv(text, b',').unwrap(),
            vec![
                rec(1, &["label", "start"]),
                rec(2, &["a, \"b\"", "x"]),
                rec(4, &["multi\nline", "y"]),
                rec(6, &["last", ""]),
            ]
        );
        assert_eq!(
            read_csv("a;b\r\n1;\"2;3\"\r\n", b';').unwrap(),
            vec![rec(1, &["a", "b"]), rec(2, &["1", "2;3"])]
        );
        assert_eq!(
            read_csv("a\n\"open\nstill", b','),
            Err(CsvError::Unclosed { line: 2 })
        );
        assert_eq!(
            read_csv("a\n\"x\"\"", b','),
            Err(CsvError::Unclosed { line: 2 }),
            "a doubled quote does not close"
        );
        // Closed at the very end, with or without a line break: read.
        assert_eq!(read_csv("a\n\"x\"", b',').unwrap()[1], rec(2, &["x"]));
        assert_eq!(read_csv("a\n\"x\"\r", b',').unwrap()[1], rec(2, &["x"]));
        // Text after a closing quote joins the field; a quote inside a bare field is text.
        assert_eq!(read_csv("a\nb\n\"x\"y", b',').unwrap()[2], rec(3, &["xy"]));
        assert_eq!(
            read_csv("say \"hi\",b", b',').unwrap()[0],
            rec(1, &["say \"hi\"", "b"])
        );
        // Old Mac line breaks count as lines too.
        assert_eq!(
            read_csv("a\rb\r\"c\rd\"\re", b',').unwrap(),
            vec![
                rec(1, &["a"]),
                rec(2, &["b"]),
                rec(3, &["c\rd"]),
                rec(5, &["e"])
            ]
        );
        assert_eq!(read_csv("", b',').unwrap(), vec![]);
        assert_eq!(read_csv("\n\r\n\n", b',').unwrap(), vec![]);
        assert_eq!(separator("label;start;end\n"), b';');
        assert_eq!(separator("label,start,end\n"), b',');
    }

    #[test]
    fn written_csv_reads_back() {
        let mut s = palmaplan_model::demo::s4hana_migration();
        s.bars[0].label = "Tricky, \"quoted\"\nlabel ".into();
        let (csv, _) = bars_csv(&s, Formulas::Neutralise).unwrap();
        let records = read_csv(&csv, b',').unwrap();
        assert_eq!(records[0].fields.join(","), CSV_HEADER);
        assert_eq!(records.len(), s.bars.len() + 1);
        let tricky = records
            .iter()
            .find(|r| r.fields[0] == s.bars[0].id.to_string())
            .unwrap();
        assert_eq!(tricky.fields[3], s.bars[0].label);
        assert_eq!(tricky.fields[7], "Karim Benali");
    }

    /// Any labels and row names, written then read: exactly the same with "keep",
    /// behind a ' where a spreadsheet would see a formula with "neutralise".
    mod round_trip {
        use super::*;
        use proptest::prelude::*;

        fn cell() -> impl Strategy<Value = String> {
            proptest::collection::vec(
                prop_oneof![
                    3 => "[a-zA-Zé0-9 ]",
                    1 => prop::sample::select(vec![
                        "\"", ",", ";", "\n", "\r", "\r\n", "\t", "=", "+", "-", "@", "'", "\u{feff}",
                    ])
                    .prop_map(str::to_owned),
                ],
                0..12,
            )
            .prop_map(|parts| parts.concat())
        }

        proptest! {
            #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

            #[test]
            fn bars_read_back(labels in proptest::collection::vec(cell(), 1..6), row in cell()) {
                let mut s = palmaplan_model::demo::s4hana_migration();
                s.rows[0].name = row;
                for (bar, label) in s.bars.iter_mut().zip(&labels) {
                    bar.label = label.clone();
                }
                for formulas in [Formulas::Keep, Formulas::Neutralise] {
                    let (csv, neutralised) = bars_csv(&s, formulas).unwrap();
                    let records = read_csv(&csv, separator(&csv)).unwrap();
                    prop_assert_eq!(records.len(), s.bars.len() + 1);
                    let mut expected_neutralised = 0;
                    for b in &s.bars {
                        let id = b.id.to_string();
                        let r = records.iter().find(|r| r.fields[0] == id).unwrap();
                        let row_name = &s.row(b.row).unwrap().name;
                        for (got, want) in [(&r.fields[3], &b.label), (&r.fields[1], row_name)] {
                            let risky = want.starts_with(FORMULA_STARTS);
                            if formulas == Formulas::Neutralise && risky {
                                expected_neutralised += 1;
                                prop_assert_eq!(got, &format!("'{want}"));
                            } else {
                                prop_assert_eq!(got, want);
                            }
                        }
                        prop_assert_eq!(&r.fields[4], &b.start.to_string());
                    }
                    // What import_csv_periods takes as a label is the label exported.
                    for b in &s.bars {
                        let id = b.id.to_string();
                        let r = records.iter().find(|r| r.fields[0] == id).unwrap();
                        // The one label that cannot come back: a quote before a formula
                        // sign, which reads as a neutralised cell.
                        let ambiguous = b
                            .label
                            .strip_prefix('\'')
                            .is_some_and(|rest| rest.starts_with(FORMULA_STARTS));
                        if !ambiguous {
                            prop_assert_eq!(&unneutralised(&r.fields[3]), &b.label);
                        }
                    }
                    if formulas == Formulas::Keep {
                        prop_assert_eq!(neutralised, 0);
                    } else {
                        prop_assert!(neutralised >= expected_neutralised);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tool_tests {
    use super::super::people_testkit::{Kit, en};
    use super::*;
    use palmaplan_model::{Group, GroupId, Row, demo};

    const REASON: &str = "Rendez-vous";

    /// A schedule with one group and one empty row (id 2), owned by the kit's owner.
    async fn empty_with_row(k: &Kit, name: &str) -> i64 {
        let mut s = Schedule::new(name);
        s.groups.push(Group {
            id: GroupId(1),
            name: "G".into(),
        });
        s.rows.push(Row {
            id: RowId(2),
            group: GroupId(1),
            name: "Cible".into(),
            member: None,
        });
        s.next_id = 3;
        k.planning
            .store()
            .create_schedule(&s, k.owner.user_id, 0)
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn exports_carry_no_private_data_the_caller_may_not_see() {
        let k = Kit::new("export-privacy").await;
        for who in [&k.viewer, &k.editor] {
            for format in ["json", "csv"] {
                let r = k
                    .ok(
                        who,
                        "export_schedule",
                        json!({ "schedule": k.schedule, "format": format }),
                    )
                    .await;
                let bytes = format!("{}\n{}", r.text, r.structured);
                assert!(!bytes.contains('@'), "{format}: {bytes}");
                assert!(!bytes.contains(REASON), "{format}: {bytes}");
                assert!(
                    !bytes.contains("reason") && !bytes.contains("email"),
                    "{format}: {bytes}"
                );
            }
        }
        // The exported JSON is still a whole, valid schedule.
        let r = k
            .ok(
                &k.viewer,
                "export_schedule",
                json!({ "schedule": k.schedule, "format": "json" }),
            )
            .await;
        let s: Schedule = serde_json::from_value(r.structured["schedule"].clone()).unwrap();
        assert_eq!(s.bars, demo::s4hana_migration().bars);
        assert!(command::validate_schedule(&s).is_ok());
        let (_, body) = r.text.split_once("\n\n").unwrap();
        assert_eq!(serde_json::from_str::<Schedule>(body).unwrap(), s);
        // Thomas sees his own e-mail and reason, no one else's e-mail.
        let r = k
            .ok(
                &k.thomas,
                "export_schedule",
                json!({ "schedule": k.schedule, "format": "json" }),
            )
            .await;
        assert!(r.text.contains("thomas.dubois@example.org"));
        assert!(r.text.contains("Rendez-vous médical"));
        assert_eq!(r.text.matches('@').count(), 1, "{}", r.text);
        // The owner's export is the stored state.
        let r = k
            .ok(
                &k.owner,
                "export_schedule",
                json!({ "schedule": k.schedule, "format": "json" }),
            )
            .await;
        let s: Schedule = serde_json::from_value(r.structured["schedule"].clone()).unwrap();
        assert_eq!(s, demo::s4hana_migration());
    }

    #[tokio::test]
    async fn json_export_imports_back_as_a_new_schedule() {
        let k = Kit::new("json-round-trip").await;
        let r = k
            .ok(
                &k.owner,
                "export_schedule",
                json!({ "schedule": k.schedule, "format": "json" }),
            )
            .await;
        let exported = r.structured["schedule"].clone();
        let r = k
            .ok(
                &k.viewer,
                "import_schedule",
                json!({ "name": "Copie importée", "json": exported }),
            )
            .await;
        assert!(
            r.text
                .starts_with("Planning importé (id 2)\u{202f}; vous en êtes propriétaire. "),
            "{}",
            r.text
        );
        let id = r.structured["schedule_id"].as_i64().unwrap();
        let mut want = demo::s4hana_migration();
        want.name = "Copie importée".into();
        assert_eq!(k.state(id).await, want);
        // The importer owns it.
        k.ok(&k.viewer, "list_access", json!({ "schedule": id }))
            .await;
        let r = k
            .ok(&k.viewer, "list_access", json!({ "schedule": id }))
            .await;
        assert!(r.text.contains("propriétaire (vous)"), "{}", r.text);
        // A string holding the JSON works too.
        let text = exported.to_string();
        k.ok(
            &k.owner,
            "import_schedule",
            json!({ "name": "Texte", "json": text }),
        )
        .await;
    }

    #[tokio::test]
    async fn invalid_or_outsized_imports_are_refused_and_create_nothing() {
        let k = Kit::new("import-refusals").await;
        let r = k
            .refused(
                &k.owner,
                "import_schedule",
                json!({ "name": "X", "json": "{\"name\": 3}" }),
            )
            .await;
        assert_eq!(r.structured["error"], "invalid_schedule");
        assert!(r.text.contains("ligne 1, colonne"), "{}", r.text);
        let mut bad = demo::s4hana_migration();
        bad.bars[0].row = RowId(999);
        let r = k
            .refused(
                &en(&k.owner),
                "import_schedule",
                json!({ "name": "X", "json": serde_json::to_value(&bad).unwrap() }),
            )
            .await;
        assert!(
            r.text.starts_with("Invalid schedule, bars[0].row:"),
            "{}",
            r.text
        );
        assert!(r.text.ends_with("Nothing was imported."), "{}", r.text);
        let huge = format!("\"{}\"", "x".repeat(MAX_IMPORT_BYTES));
        let r = k
            .refused(
                &en(&k.owner),
                "import_schedule",
                json!({ "name": "X", "json": huge }),
            )
            .await;
        assert_eq!(r.structured["error"], "too_large");
        assert!(r.text.contains("the limit is 16.0 MB"), "{}", r.text);
        k.refused(
            &k.owner,
            "import_schedule",
            json!({ "name": "X", "json": 42 }),
        )
        .await;
        k.refused(
            &k.owner,
            "import_schedule",
            json!({ "name": " ", "json": {} }),
        )
        .await;
        let mine = k
            .planning
            .store()
            .schedules_of(k.owner.user_id)
            .await
            .unwrap();
        assert_eq!(mine.len(), 1, "nothing was created");
    }

    #[tokio::test]
    async fn csv_export_imports_back_into_a_row() {
        let k = Kit::new("csv-round-trip").await;
        let mut demo_state = k.state(k.schedule).await;
        // A label that needs every kind of quoting.
        k.ok(
            &k.editor,
            "apply_patch",
            json!({ "schedule": k.schedule, "expected_rank": 0, "commands": [
                { "op": "update_period", "bar": 13, "label": "Audit, \"complet\"\nphase 1 " }
            ]}),
        )
        .await;
        demo_state.bars[0].label = "Audit, \"complet\"\nphase 1 ".into();
        let r = k
            .ok(
                &k.owner,
                "export_schedule",
                json!({ "schedule": k.schedule, "format": "csv" }),
            )
            .await;
        let csv = r.structured["csv"].as_str().unwrap().to_owned();
        let target = empty_with_row(&k, "Cible").await;
        let r = k
            .ok(
                &k.owner,
                "import_csv_periods",
                json!({ "schedule": target, "row": 2, "csv": csv }),
            )
            .await;
        assert_eq!(
            r.text,
            "6 blocs ajoutés à la ligne «\u{a0}Cible\u{a0}» (ids 3–8)\u{202f}; rang 1. Colonnes ignorées\u{a0}: id, row, group, member, progress, actual_start, actual_finish."
        );
        let got = k.state(target).await;
        let key = |b: &palmaplan_model::Bar| (b.label.clone(), b.start, b.end, b.color.clone());
        let mut want: Vec<_> = demo_state.bars.iter().map(key).collect();
        let mut have: Vec<_> = got.bars.iter().map(key).collect();
        want.sort();
        have.sort();
        assert_eq!(have, want);
        assert!(got.bars.iter().all(|b| b.row == RowId(2)));
    }

    #[tokio::test]
    async fn csv_errors_name_their_line_and_change_nothing() {
        let k = Kit::new("csv-errors").await;
        let target = empty_with_row(&k, "Cible").await;
        let call = |csv: &str| json!({ "schedule": target, "row": 2, "csv": csv });
        let r = k
            .refused(
                &k.owner,
                "import_csv_periods",
                call("label,start,end\nA,2026-11-02,2026-11-03\nB,2026-13-01,2026-11-03\n"),
            )
            .await;
        assert_eq!(
            r.text,
            "CSV, ligne 3\u{a0}: start «\u{a0}2026-13-01\u{a0}» n'est pas une date\u{202f}; écrivez AAAA-MM-JJ, par exemple 2026-11-30. Rien n'a été ajouté."
        );
        assert_eq!(r.structured["line"], 3);
        // The model's checks (colour, end before start) name the line too.
        let r = k
            .refused(
                &en(&k.owner),
                "import_csv_periods",
                call("libellé;début;fin;couleur\n\"A\";2026-11-02;2026-11-03;#fff\n\nB;2026-11-02;2026-11-03;red\n"),
            )
            .await;
        assert!(
            r.text
                .starts_with("CSV, line 4: color: \"red\" is not a colour."),
            "{}",
            r.text
        );
        let r = k
            .refused(
                &k.owner,
                "import_csv_periods",
                call("label,start,end\nA,2026-11-05,2026-11-03"),
            )
            .await;
        assert!(
            r.text
                .starts_with("CSV, ligne 2\u{a0}: end\u{a0}: la fin (2026-11-03) précède le début"),
            "{}",
            r.text
        );
        let r = k
            .refused(
                &k.owner,
                "import_csv_periods",
                call("label,start,end\n\"A,2026-11-05,2026-11-03\n"),
            )
            .await;
        assert!(
            r.text
                .starts_with("CSV, ligne 2\u{a0}: un guillemet ouvert"),
            "{}",
            r.text
        );
        let r = k
            .refused(
                &k.owner,
                "import_csv_periods",
                call("nom,du,au\nA,2026-11-05,2026-11-06"),
            )
            .await;
        assert!(
            r.text
                .contains("doit nommer les colonnes label, start et end"),
            "{}",
            r.text
        );
        let r = k
            .refused(
                &k.owner,
                "import_csv_periods",
                call("label,start,end\nA,2026-11-05"),
            )
            .await;
        assert!(
            r.text.starts_with("CSV, ligne 2\u{a0}: 2 champs"),
            "{}",
            r.text
        );
        k.refused(&k.owner, "import_csv_periods", call("label,start,end\n"))
            .await;
        k.refused(&k.owner, "import_csv_periods", call("")).await;
        let r = k
            .refused(
                &k.owner,
                "import_csv_periods",
                json!({ "schedule": target, "row": 77, "csv": "label,start,end\nA,2026-11-02,2026-11-03" }),
            )
            .await;
        assert_eq!(r.structured["error"], "row_not_found");
        let r = k
            .refused(
                &k.viewer,
                "import_csv_periods",
                json!({ "schedule": k.schedule, "row": 6, "csv": "label,start,end\nA,2026-11-02,2026-11-03" }),
            )
            .await;
        assert_eq!(r.structured["error"], "forbidden");
        let s = k.state(target).await;
        assert!(s.bars.is_empty());
        assert_eq!(k.planning.store().rank(target).await.unwrap(), 0);
    }
}
