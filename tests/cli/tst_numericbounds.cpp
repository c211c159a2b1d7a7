// SPDX-License-Identifier: MIT
// Every numeric option of every tidemark-cli command against its documented range (the usage
// text): 0, -1, 2^31, 2^32, 2^63 and the range's own edges. Out of range: exit 2 and one stderr
// line naming the command and the option, nothing stored. In range: exit 0 and the value reads
// back exactly (schedule list, table list, alert show, history). IDs have no upper bound but
// the 64-bit one: an in-range ID that names nothing is refused naming that ID.

#include "tests/support/clifixture.h"
#include "tests/support/testsupport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

#include <limits>
#include <optional>

using namespace tidemark::test;

namespace {

// How a value the option accepts is read back.
enum class Readback {
    None,          // exit 0 is all there is to see (history --limit)
    ScheduleField, // `schedule list --json`, the schedule's `field`
    ScheduleAlert, // `schedule list --json`, the schedule's alerts.`field`
    AlertField,    // `alert show --json`, `field`
    TableField,    // `table list --json`, the new table's `field` (its id is the printed line)
    EditedTable,   // `table list --json`, the edited table's `field` (its id follows "table edit")
    RunField,      // `history --limit 1 --json`, the newest run's `field`
    FireTimes,     // `schedule next --json`: that many fire times
    Id,            // an ID in range that names nothing: refused, naming the ID
};

constexpr qint64 kNoMin = std::numeric_limits<qint64>::min();
constexpr qint64 kNoMax = std::numeric_limits<qint64>::max();

// One option of one command. `args` is the command line with "%V" where the value goes and
// "%N" for a fresh name (schedules, target tables). Integer options take every value from
// `min` to `max`; a duration's accepted and refused spellings are listed with what each reads
// back as. Adding a numeric option to tidemark-cli means adding its one line here.
struct NumericOption {
    QString command; // named by every refusal
    QString option;  // named by every refusal
    QStringList args;
    qint64 min = 0;
    qint64 max = 0;
    Readback readback = Readback::None;
    QString field;
    QList<QPair<QString, QString>> durationsAccepted; // text -> read back
    QStringList durationsRefused;                     // besides the swept integers
};

// An integer option taking [min, max]; `field` is what reads it back.
NumericOption integer(const char *command, const char *option, const QStringList &args, qint64 min,
                      qint64 max, Readback readback, const char *field = "") {
    NumericOption row;
    row.command = QString::fromUtf8(command);
    row.option = QString::fromUtf8(option);
    row.args = args;
    row.min = min;
    row.max = max;
    row.readback = readback;
    row.field = QString::fromUtf8(field);
    return row;
}

// A duration option: the spellings it accepts (with what each reads back as) and refuses.
NumericOption duration(const char *command, const char *option, const QStringList &args, Readback readback,
                       const char *field, const QList<QPair<QString, QString>> &accepted,
                       const QStringList &refused) {
    NumericOption row = integer(command, option, args, 0, 0, readback, field);
    row.durationsAccepted = accepted;
    row.durationsRefused = refused;
    return row;
}

bool isDuration(const NumericOption &option) {
    return !option.durationsAccepted.isEmpty();
}

QStringList L(std::initializer_list<const char *> parts) {
    QStringList list;
    for (const char *part : parts)
        list << QString::fromUtf8(part);
    return list;
}

const QList<NumericOption> &options() {
    static const QList<NumericOption> table = [] {
        const QStringList hookTimeouts{QStringLiteral("601s"), QStringLiteral("11m"), QStringLiteral("1d"),
                                       QStringLiteral("0ms")};
        const QList<QPair<QString, QString>> hookAccepted{{QStringLiteral("1ms"), QStringLiteral("1")},
                                                          {QStringLiteral("10m"), QStringLiteral("600000")},
                                                          {QStringLiteral("600s"), QStringLiteral("600000")}};
        const QList<QPair<QString, QString>> timeoutAccepted{{QStringLiteral("1s"), QStringLiteral("1s")},
                                                             {QStringLiteral("7d"), QStringLiteral("7d")},
                                                             {QStringLiteral("90m"), QStringLiteral("90m")}};
        const QStringList timeoutRefused{QStringLiteral("8d"), QStringLiteral("604801s"),
                                         QStringLiteral("500ms"), QStringLiteral("0s")};
        const QList<QPair<QString, QString>> maxFutureAccepted{
            {QStringLiteral("1m"), QStringLiteral("1m")},
            {QStringLiteral("2h"), QStringLiteral("2h")},
            {QStringLiteral("3650d"), QStringLiteral("3650d")}};
        const QStringList maxFutureRefused{QStringLiteral("59s"), QStringLiteral("3651d"),
                                           QStringLiteral("0s")};
        // clang-format off
        return QList<NumericOption>{
            integer("run", "--concurrency", L({"run", "--dry-run", "--table", "1", "--concurrency", "%V"}), 1, 256, Readback::RunField, "concurrency"),
            integer("run", "--table", L({"run", "--dry-run", "--table", "%V"}), 1, kNoMax, Readback::Id),
            integer("schedule add", "--concurrency", L({"schedule", "add", "%N", "--cron", "@daily", "--concurrency", "%V"}), 1, 256, Readback::ScheduleField, "concurrency"),
            integer("schedule add", "--retries", L({"schedule", "add", "%N", "--cron", "@daily", "--retries", "%V"}), 0, 10, Readback::ScheduleField, "retries"),
            duration("schedule add", "--timeout", L({"schedule", "add", "%N", "--cron", "@daily", "--timeout", "%V"}), Readback::ScheduleField, "timeout", timeoutAccepted, timeoutRefused),
            duration("schedule add", "--hook-timeout", L({"schedule", "add", "%N", "--cron", "@daily", "--hook", "true", "--hook-timeout", "%V"}), Readback::ScheduleAlert, "hook_timeout_ms", hookAccepted, hookTimeouts),
            duration("schedule add", "--webhook-timeout", L({"schedule", "add", "%N", "--cron", "@daily", "--webhook", "http://127.0.0.1:9/alert", "--webhook-timeout", "%V"}), Readback::ScheduleAlert, "webhook_timeout_ms", hookAccepted, hookTimeouts),
            integer("schedule add", "--table", L({"schedule", "add", "%N", "--cron", "@daily", "--table", "%V"}), 1, kNoMax, Readback::Id),
            integer("schedule edit", "--concurrency", L({"schedule", "edit", "base", "--concurrency", "%V"}), 1, 256, Readback::ScheduleField, "concurrency"),
            integer("schedule edit", "--retries", L({"schedule", "edit", "base", "--retries", "%V"}), 0, 10, Readback::ScheduleField, "retries"),
            duration("schedule edit", "--timeout", L({"schedule", "edit", "base", "--timeout", "%V"}), Readback::ScheduleField, "timeout", timeoutAccepted, timeoutRefused),
            duration("schedule edit", "--hook-timeout", L({"schedule", "edit", "base", "--hook", "true", "--hook-timeout", "%V"}), Readback::ScheduleAlert, "hook_timeout_ms", hookAccepted, hookTimeouts),
            duration("schedule edit", "--webhook-timeout", L({"schedule", "edit", "base", "--webhook", "http://127.0.0.1:9/alert", "--webhook-timeout", "%V"}), Readback::ScheduleAlert, "webhook_timeout_ms", hookAccepted, hookTimeouts),
            integer("schedule edit", "--table", L({"schedule", "edit", "base", "--table", "%V"}), 1, kNoMax, Readback::Id),
            integer("schedule next", "--count", L({"schedule", "next", "base", "--json", "--count", "%V"}), 1, 1000, Readback::FireTimes),
            integer("history", "--limit", L({"history", "--json", "--limit", "%V"}), 0, std::numeric_limits<int>::max(), Readback::None),
            integer("history", "--run", L({"history", "--run", "%V"}), 1, kNoMax, Readback::Id),
            integer("history", "--table", L({"history", "--table", "%V"}), 1, kNoMax, Readback::Id),
            integer("verify", "--table", L({"verify", "--table", "%V"}), 1, kNoMax, Readback::Id),
            integer("table add", "--max-skipped", L({"table", "add", "--source", "src:orders", "--target", "dst:%N", "--watermark", "updated_at", "--max-skipped", "%V"}), 0, qint64(1) << 53, Readback::TableField, "max_skipped"),
            integer("table add", "--batch-size", L({"table", "add", "--source", "src:orders", "--target", "dst:%N", "--watermark", "updated_at", "--batch-size", "%V"}), 1, 1'000'000, Readback::TableField, "batch_size"),
            integer("table add", "--lookback", L({"table", "add", "--source", "src:orders", "--target", "dst:%N", "--watermark", "id", "--mode", "merge", "--lookback", "%V"}), 0, kNoMax, Readback::TableField, "lookback"),
            integer("table add", "--initial-watermark", L({"table", "add", "--source", "src:orders", "--target", "dst:%N", "--watermark", "id", "--initial-watermark", "%V"}), kNoMin, kNoMax, Readback::TableField, "initial_watermark"),
            integer("table add", "--max-jump", L({"table", "add", "--source", "src:orders", "--target", "dst:%N", "--watermark", "id", "--max-jump", "%V"}), 1, kNoMax, Readback::TableField, "max_jump"),
            duration("table add", "--max-future", L({"table", "add", "--source", "src:orders", "--target", "dst:%N", "--watermark", "updated_at", "--max-future", "%V"}), Readback::TableField, "max_future", maxFutureAccepted, maxFutureRefused),
            integer("table edit", "--max-skipped", L({"table", "edit", "1", "--max-skipped", "%V"}), 0, qint64(1) << 53, Readback::EditedTable, "max_skipped"),
            integer("table edit", "--batch-size", L({"table", "edit", "1", "--batch-size", "%V"}), 1, 1'000'000, Readback::EditedTable, "batch_size"),
            integer("table edit", "--lookback", L({"table", "edit", "2", "--lookback", "%V"}), 0, kNoMax, Readback::EditedTable, "lookback"),
            integer("table edit", "--initial-watermark", L({"table", "edit", "2", "--initial-watermark", "%V"}), kNoMin, kNoMax, Readback::EditedTable, "initial_watermark"),
            integer("table edit", "--max-jump", L({"table", "edit", "2", "--max-jump", "%V"}), 1, kNoMax, Readback::EditedTable, "max_jump"),
            duration("table edit", "--max-future", L({"table", "edit", "1", "--max-future", "%V"}), Readback::EditedTable, "max_future", maxFutureAccepted, maxFutureRefused),
            integer("table edit", "table ID", L({"table", "edit", "%V", "--batch-size", "5"}), 1, kNoMax, Readback::Id),
            integer("table purge", "table ID", L({"table", "purge", "%V"}), 1, kNoMax, Readback::Id),
            integer("table pause", "table ID", L({"table", "pause", "%V"}), 1, kNoMax, Readback::Id),
            integer("table resume", "table ID", L({"table", "resume", "%V"}), 1, kNoMax, Readback::Id),
            integer("table remove", "table ID", L({"table", "remove", "%V"}), 1, kNoMax, Readback::Id),
            integer("table restore", "table ID", L({"table", "restore", "%V"}), 1, kNoMax, Readback::Id),
            integer("backfill", "table ID", L({"backfill", "%V", "--truncate"}), 1, kNoMax, Readback::Id),
            duration("alert set", "--hook-timeout", L({"alert", "set", "--hook", "true", "--hook-timeout", "%V"}), Readback::AlertField, "hook_timeout_ms", hookAccepted, hookTimeouts),
            duration("alert set", "--webhook-timeout", L({"alert", "set", "--webhook", "http://127.0.0.1:9/alert", "--webhook-timeout", "%V"}), Readback::AlertField, "webhook_timeout_ms", hookAccepted, hookTimeouts),
            integer("alert test", "--run", L({"alert", "test", "--run", "%V"}), 1, kNoMax, Readback::Id),
        };
        // clang-format on
    }();
    return table;
}

// The values every integer option is swept with, besides its own edges.
const QStringList kSwept{QStringLiteral("0"), QStringLiteral("-1"), QStringLiteral("2147483648"),
                         QStringLiteral("4294967296"), QStringLiteral("9223372036854775808")};

// Whether `text` is an integer in [min, max].
bool inRange(const QString &text, qint64 min, qint64 max) {
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    return ok && value >= min && value <= max;
}

QString jsonText(const QJsonValue &value) {
    if (value.isString())
        return value.toString();
    if (value.isDouble())
        return QString::number(value.toInteger());
    if (value.isNull())
        return QStringLiteral("null");
    return QStringLiteral("?");
}

} // namespace

class TestNumericBounds : public QObject, protected CliFixture {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase() { stopFixture(); }
    void optionRefusesOutOfRangeAndStoresInRange_data();
    void optionRefusesOutOfRangeAndStoresInRange();

private:
    std::optional<QJsonObject> scheduleNamed(const QString &name) const {
        for (const QJsonValue &value : parseJsonArray(
                 cli({QStringLiteral("schedule"), QStringLiteral("list"), QStringLiteral("--json")}).out))
            if (value.toObject().value(QStringLiteral("name")).toString() == name)
                return value.toObject();
        return std::nullopt;
    }
    std::optional<QJsonObject> tableWithId(qint64 id) const {
        for (const QJsonValue &value : parseJsonArray(
                 cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")}).out))
            if (value.toObject().value(QStringLiteral("id")).toInteger() == id)
                return value.toObject();
        return std::nullopt;
    }
    qsizetype tableCount() const {
        return parseJsonArray(
                   cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")}).out)
            .size();
    }

    int m_names = 0;
};

void TestNumericBounds::initTestCase() {
    TIDEMARK_REQUIRE_WORKSPACE_BACKEND();
    startFixture();
    makeOrders(m_src, 3);
    setupConnections();
    QCOMPARE(
        addTable({QStringLiteral("--source"), QStringLiteral("src:orders"), QStringLiteral("--target"),
                  QStringLiteral("dst:orders"), QStringLiteral("--watermark"), QStringLiteral("updated_at")}),
        qint64(1));
    // `table edit` of an integer watermark (--lookback, --max-jump) edits this one, a merge table.
    QCOMPARE(addTable({QStringLiteral("--source"), QStringLiteral("src:orders"), QStringLiteral("--target"),
                       QStringLiteral("dst:orders2"), QStringLiteral("--watermark"), QStringLiteral("id"),
                       QStringLiteral("--mode"), QStringLiteral("merge")}),
             qint64(2));
    CLI_EXIT(cli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("base"),
                  QStringLiteral("--cron"), QStringLiteral("@daily")}),
             0);
    // `alert test --run` reads its --run only when alerts are set.
    CLI_EXIT(cli({QStringLiteral("alert"), QStringLiteral("set"), QStringLiteral("--hook"),
                  QStringLiteral("true")}),
             0);
}

void TestNumericBounds::optionRefusesOutOfRangeAndStoresInRange_data() {
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("value");
    QTest::addColumn<bool>("accepted");
    QTest::addColumn<QString>("expected"); // what an accepted value reads back as
    for (int index = 0; index < options().size(); ++index) {
        const NumericOption &option = options().at(index);
        const QString name = option.command + QLatin1Char(' ') + option.option;
        QList<QPair<QString, std::optional<QString>>> values; // text -> read back, nullopt = refused
        if (isDuration(option)) {
            for (const QString &text : kSwept + option.durationsRefused)
                values.append({text, std::nullopt});
            for (const auto &[text, readBack] : option.durationsAccepted)
                values.append({text, readBack});
        } else {
            QStringList texts = kSwept;
            // The range's own edges, each side; an ID's lower edge names table 1, which exists.
            if (option.min != kNoMin)
                texts << QString::number(option.min - 1);
            if (option.readback != Readback::Id)
                texts << QString::number(option.min);
            texts << QString::number(option.max);
            if (option.max != kNoMax)
                texts << QString::number(option.max + 1);
            texts.removeDuplicates();
            for (const QString &text : texts)
                values.append({text, inRange(text, option.min, option.max) ? std::optional<QString>(text)
                                                                           : std::nullopt});
        }
        for (const auto &[text, readBack] : values)
            QTest::addRow("%s %s", qPrintable(name), qPrintable(text))
                << index << text << readBack.has_value() << readBack.value_or(QString());
    }
}

void TestNumericBounds::optionRefusesOutOfRangeAndStoresInRange() {
    QFETCH(int, index);
    QFETCH(QString, value);
    QFETCH(bool, accepted);
    QFETCH(QString, expected);
    const NumericOption &option = options().at(index);

    const QString name = QStringLiteral("n%1").arg(++m_names);
    QStringList args;
    for (QString arg : option.args)
        args << arg.replace(QLatin1String("%V"), value).replace(QLatin1String("%N"), name);
    const qsizetype tablesBefore = option.readback == Readback::TableField ? tableCount() : 0;
    const qint64 editedId = option.readback == Readback::EditedTable ? option.args.value(2).toLongLong() : 0;
    const std::optional<QJsonObject> editedBefore = editedId > 0 ? tableWithId(editedId) : std::nullopt;
    const CliResult result = cli(args);

    if (!accepted) {
        CLI_EXIT(result, 2);
        QCOMPARE(result.errLines().size(), 1);
        const QString line = result.errLines().first();
        QVERIFY2(line.contains(option.command + QLatin1Char(':')) ||
                     line.contains(option.command + QLatin1Char(' ')),
                 qPrintable(line));
        QVERIFY2(line.contains(option.option), qPrintable(line));
        QVERIFY2(line.contains(value), qPrintable(line));
        // Nothing stored.
        if (option.readback == Readback::TableField)
            QCOMPARE(tableCount(), tablesBefore);
        if (option.readback == Readback::EditedTable)
            QCOMPARE(tableWithId(editedId), editedBefore);
        if (option.command == QLatin1String("schedule add"))
            QVERIFY(!scheduleNamed(name));
        return;
    }

    if (option.readback == Readback::Id) {
        // In range but naming nothing: refused by the lookup, naming the ID, not as a bad number.
        CLI_EXIT(result, 2);
        QCOMPARE(result.errLines().size(), 1);
        QVERIFY2(result.err.contains(value), qPrintable(result.err));
        QVERIFY2(!result.err.contains(QStringLiteral("is not an integer")), qPrintable(result.err));
        return;
    }

    CLI_EXIT(result, 0);
    switch (option.readback) {
    case Readback::None:
    case Readback::Id:
        break;
    case Readback::ScheduleField:
    case Readback::ScheduleAlert: {
        const QString schedule =
            option.command == QLatin1String("schedule edit") ? QStringLiteral("base") : name;
        const std::optional<QJsonObject> found = scheduleNamed(schedule);
        QVERIFY(found);
        const QJsonObject object = option.readback == Readback::ScheduleField
                                       ? *found
                                       : found->value(QStringLiteral("alerts")).toObject();
        QCOMPARE(jsonText(object.value(option.field)), expected);
        break;
    }
    case Readback::AlertField: {
        const QJsonObject alerts = parseJsonObject(
            cli({QStringLiteral("alert"), QStringLiteral("show"), QStringLiteral("--json")}).out);
        QCOMPARE(jsonText(alerts.value(option.field)), expected);
        break;
    }
    case Readback::TableField:
    case Readback::EditedTable: {
        const std::optional<QJsonObject> table = tableWithId(
            option.readback == Readback::EditedTable ? editedId : result.out.trimmed().toLongLong());
        QVERIFY2(table, qPrintable(result.describe()));
        QCOMPARE(jsonText(table->value(option.field)), expected);
        break;
    }
    case Readback::RunField: {
        const QJsonArray runs = parseJsonArray(cli({QStringLiteral("history"), QStringLiteral("--limit"),
                                                    QStringLiteral("1"), QStringLiteral("--json")})
                                                   .out);
        QCOMPARE(runs.size(), 1);
        QCOMPARE(jsonText(runs.first().toObject().value(option.field)), expected);
        break;
    }
    case Readback::FireTimes:
        QCOMPARE(QString::number(parseJsonArray(result.out).size()), expected);
        break;
    }
}

QTEST_GUILESS_MAIN(TestNumericBounds)
#include "tst_numericbounds.moc"
