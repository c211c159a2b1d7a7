// SPDX-License-Identifier: MIT
#include "ui/controltable/tabledialog.h"

#include "model/common/error.h"
#include "model/domain/sourcezone.h"
#include "model/domain/tablehealth.h"
#include "model/engine/remotework.h"
#include "model/engine/watermarksuggestion.h"
#include "model/storage/workspace.h"
#include "ui/common/tablenaming.h"
#include "ui/common/workspacegateway.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTimeZone>
#include <QTimer>
#include <QVBoxLayout>

namespace tidemark {

namespace {

constexpr int ColumnNameRole = Qt::UserRole + 1;

QString typeText(const SourceColumn &column) {
    QString text = column.column.nativeType.isEmpty() ? QStringLiteral("untyped") : column.column.nativeType;
    if (column.watermarkType != WatermarkType::None)
        text += QStringLiteral(", %1 watermark").arg(watermarkTypeName(column.watermarkType));
    if (column.column.primaryKeyOrdinal > 0)
        text += QStringLiteral(", primary key");
    else if (column.column.indexed)
        text += QStringLiteral(", indexed");
    return text;
}

// Lanes of remote work, each superseded by its next request; the first pressing status wins.
const QString kPrepareLane = QStringLiteral("prepare");
const QString kColumnsLane = QStringLiteral("columns");
const QString kTablesLane = QStringLiteral("tables");
const QString kConnectionsLane = QStringLiteral("connections");

// A pause in typing after which a typed table name counts as chosen.
constexpr int kDescribeDelayMs = 400;
// The status and problem lines reserve this many text lines, so the form never moves.
constexpr int kStatusLines = 2;
constexpr int kProblemLines = 4;
constexpr int kShownProblems = 3;

void reserveLines(QLabel *label, int lines) {
    label->setWordWrap(true);
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->setFixedHeight(label->fontMetrics().lineSpacing() * lines + 4);
}

// Combos as wide with one item as with a hundred: the dialog does not grow as lists fill.
void fixWidth(QComboBox *combo) {
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(36);
}

// The connections, and the source and target connections every existing table uses when they all
// use the same pair (else none): a new table most likely goes the same way, and with several
// pairs any pick would be a guess.
struct ConnectionChoices {
    QList<ConnectionSpec> connections;
    QString source;
    QString target;
};

ConnectionChoices readConnectionChoices(Workspace &ws) {
    ConnectionChoices choices{ws.connections(), {}, {}};
    const QList<TableSpec> tables = ws.tables();
    const auto samePair = [&](const TableSpec &t) {
        return t.sourceConnection == tables.first().sourceConnection &&
               t.targetConnection == tables.first().targetConnection;
    };
    if (!tables.isEmpty() && std::all_of(tables.cbegin(), tables.cend(), samePair)) {
        choices.source = tables.first().sourceConnection;
        choices.target = tables.first().targetConnection;
    }
    return choices;
}

void selectData(QComboBox *combo, const QString &value) {
    const int index = combo->findData(value, ColumnNameRole);
    combo->setCurrentIndex(index >= 0 ? index : 0);
}

} // namespace

TableDialog::TableDialog(WorkspaceGateway *gateway, const std::optional<TableSpec> &existing, QWidget *parent)
    : QDialog(parent)
    , m_gateway(gateway)
    , m_remote(new RemoteWorkQueue(this))
    , m_describeDelay(new QTimer(this))
    , m_existing(existing) {
    setWindowTitle(existing ? tr("Edit table %1").arg(tableName(*existing)) : tr("Add table"));
    m_describeDelay->setSingleShot(true);
    m_describeDelay->setInterval(kDescribeDelayMs);
    connect(m_describeDelay, &QTimer::timeout, this, &TableDialog::commitSourceTable);
    buildUi();
    if (m_existing) {
        const TableSpec &spec = *m_existing;
        m_targetTable->setText(spec.targetTable);
        m_targetEdited = true;
        m_mode->setCurrentIndex(m_mode->findData(int(spec.mode)));
        m_lookback->setText(spec.lookback);
        m_staleAfter->setText(spec.staleAfter);
        m_deletes->setCurrentText(spec.deletes.actionText());
        m_sourceZone->setCurrentText(spec.sourceTimezone.isEmpty() ? QStringLiteral("UTC")
                                                                   : spec.sourceTimezone);
        m_initialWatermark->setText(shownWatermark(spec.initialWatermark, spec.sourceTimezone));
        m_maxSkipped->setValue(int(qMin<qint64>(spec.maxSkipped, m_maxSkipped->maximum())));
        m_batchSize->setValue(spec.batchSize);
        m_expectRows->setChecked(spec.expectRows);
        m_commitPerBatch->setChecked(spec.commitPerBatch);
        m_addNewColumns->setChecked(spec.addNewColumns);
        m_active->setChecked(spec.active);
        m_zeroDatesNull->setChecked(spec.zeroDates == ZeroDates::Null);
    }
    loadConnections();
    revalidate();
}

void TableDialog::buildUi() {
    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_sourceConnection = new QComboBox(this);
    m_sourceConnection->setObjectName(QStringLiteral("sourceConnection"));
    m_sourceConnection->setPlaceholderText(tr("Choose a source connection"));
    m_sourceTable = new QComboBox(this);
    m_sourceTable->setObjectName(QStringLiteral("sourceTable"));
    m_sourceTable->setEditable(true);
    m_sourceTable->setInsertPolicy(QComboBox::NoInsert);
    m_sourceTable->lineEdit()->setPlaceholderText(tr("Choose a source table"));
    m_targetConnection = new QComboBox(this);
    m_targetConnection->setObjectName(QStringLiteral("targetConnection"));
    m_targetConnection->setPlaceholderText(tr("Choose a target connection"));
    m_targetTable = new QLineEdit(this);
    m_targetTable->setObjectName(QStringLiteral("targetTable"));
    m_mode = new QComboBox(this);
    m_mode->setObjectName(QStringLiteral("mode"));
    m_mode->addItem(tr("append — insert new rows"), int(WriteMode::Append));
    m_mode->addItem(tr("merge — upsert on key columns"), int(WriteMode::Merge));
    m_mode->addItem(tr("overwrite — replace the whole target"), int(WriteMode::Overwrite));
    m_watermark = new QComboBox(this);
    m_watermark->setObjectName(QStringLiteral("watermark"));
    m_sourceZone = new QComboBox(this);
    m_sourceZone->setObjectName(QStringLiteral("sourceZone"));
    m_sourceZone->setEditable(true);
    m_sourceZone->setInsertPolicy(QComboBox::NoInsert);
    m_sourceZone->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_sourceZone->setMinimumContentsLength(16);
    m_sourceZone->addItem(QStringLiteral("UTC"));
    for (const QByteArray &id : QTimeZone::availableTimeZoneIds()) {
        if (id != "UTC")
            m_sourceZone->addItem(QString::fromUtf8(id));
    }
    m_sourceZone->completer()->setCompletionMode(QCompleter::PopupCompletion);
    m_sourceZone->completer()->setFilterMode(Qt::MatchContains);
    m_sourceZone->setToolTip(tr("Whose clock a watermark column without zone holds (SQLite text without "
                                "offset, timestamp without time zone, DATETIME)"));
    m_watermarkReason = new QLabel(this);
    m_watermarkReason->setObjectName(QStringLiteral("watermarkReason"));
    reserveLines(m_watermarkReason, kStatusLines);
    m_tiebreak = new QComboBox(this);
    m_tiebreak->setObjectName(QStringLiteral("tiebreak"));
    for (QComboBox *combo : {m_sourceConnection, m_sourceTable, m_targetConnection, m_watermark, m_tiebreak})
        fixWidth(combo);
    m_keys = new QListWidget(this);
    m_keys->setObjectName(QStringLiteral("keys"));
    m_keys->setFixedHeight(82); // five columns in view; the dialog fits 768 pixels
    m_lookback = new QLineEdit(this);
    m_lookback->setObjectName(QStringLiteral("lookback"));
    m_lookback->setPlaceholderText(tr("none — e.g. 2h, 30m, 1d for timestamps; 500 for integers"));
    m_staleAfter = new QLineEdit(this);
    m_staleAfter->setObjectName(QStringLiteral("staleAfter"));
    m_staleAfter->setPlaceholderText(tr("never — e.g. 6h, 1d"));
    m_staleAfter->setToolTip(tr("A table whose position stands still longer, while rows wait or no run "
                                "copies it, shows as Stalled"));
    m_deletes = new QComboBox(this);
    m_deletes->setObjectName(QStringLiteral("deletes"));
    m_deletes->setEditable(true);
    m_deletes->setInsertPolicy(QComboBox::NoInsert);
    m_deletes->addItems(
        {QStringLiteral("ignore"), QStringLiteral("remove"), QStringLiteral("mark:deleted_at")});
    m_deletes->setToolTip(
        tr("What becomes of target rows whose key the source deleted, looked for after each "
           "copy: ignore (keep them), remove, or mark:COLUMN (a timestamp column of the target "
           "set when the row goes). How often and its guards: table edit --delete-check, "
           "--max-delete-ratio, --delete-grace"));
    m_initialWatermark = new QLineEdit(this);
    m_initialWatermark->setObjectName(QStringLiteral("initialWatermark"));
    m_initialWatermark->setPlaceholderText(tr("none — the first run copies every row"));
    m_maxSkipped = new QSpinBox(this);
    m_maxSkipped->setObjectName(QStringLiteral("maxSkipped"));
    m_maxSkipped->setRange(0, 1'000'000'000);
    m_maxSkipped->setToolTip(
        tr("Rows the target may refuse before the iteration fails; refused rows are kept "
           "as rejects and the iteration ends with a warning"));
    m_batchSize = new QSpinBox(this);
    m_batchSize->setRange(1, 1'000'000);
    m_batchSize->setValue(10000);
    m_expectRows = new QCheckBox(tr("Warn when a run finds no new rows"), this);
    m_commitPerBatch = new QCheckBox(tr("Commit each batch (long loads resume where they stopped)"), this);
    m_addNewColumns = new QCheckBox(tr("Add source columns that the target lacks"), this);
    m_active = new QCheckBox(tr("Active (paused tables are shown, not run)"), this);
    m_active->setChecked(true);
    m_zeroDatesNull = new QCheckBox(tr("Zero dates as NULL"), this);
    m_zeroDatesNull->setObjectName(QStringLiteral("zeroDatesNull"));

    form->addRow(tr("Source connection:"), m_sourceConnection);
    form->addRow(tr("Source table:"), m_sourceTable);
    form->addRow(tr("Target connection:"), m_targetConnection);
    form->addRow(tr("Target table:"), m_targetTable);
    form->addRow(tr("Write mode:"), m_mode);
    auto *watermarkRow = new QHBoxLayout;
    watermarkRow->addWidget(m_watermark, 1);
    watermarkRow->addWidget(new QLabel(tr("Time zone:"), this));
    watermarkRow->addWidget(m_sourceZone);
    form->addRow(tr("Watermark column:"), watermarkRow);
    form->addRow(QString(), m_watermarkReason);
    form->addRow(tr("Tiebreak column:"), m_tiebreak);
    form->addRow(tr("Key columns:"), m_keys);
    form->addRow(tr("Lookback:"), m_lookback);
    auto *staleRow = new QHBoxLayout;
    staleRow->addWidget(m_staleAfter, 1);
    staleRow->addWidget(new QLabel(tr("Deletes:"), this));
    staleRow->addWidget(m_deletes);
    form->addRow(tr("Stale after:"), staleRow);
    form->addRow(tr("Initial watermark:"), m_initialWatermark);
    form->addRow(tr("Max skipped rows:"), m_maxSkipped);
    form->addRow(tr("Batch size:"), m_batchSize);
    form->addRow(QString(), m_expectRows);
    form->addRow(QString(), m_commitPerBatch);
    form->addRow(QString(), m_addNewColumns);
    auto *activeRow = new QHBoxLayout;
    activeRow->addWidget(m_active);
    activeRow->addWidget(m_zeroDatesNull);
    activeRow->addStretch();
    form->addRow(QString(), activeRow);

    m_problemLabel = new QLabel(this);
    m_problemLabel->setObjectName(QStringLiteral("problems"));
    reserveLines(m_problemLabel, kProblemLines);
    m_problemLabel->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_busyLabel = new QLabel(this);
    m_busyLabel->setObjectName(QStringLiteral("busy"));
    reserveLines(m_busyLabel, kStatusLines);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &TableDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &TableDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problemLabel);
    layout->addWidget(m_busyLabel);
    layout->addWidget(m_buttons);
    layout->setSizeConstraint(QLayout::SetMinimumSize);

    connect(m_sourceConnection, &QComboBox::currentIndexChanged, this, &TableDialog::sourceConnectionChanged);
    connect(m_sourceTable, &QComboBox::currentTextChanged, this, &TableDialog::sourceTableEdited);
    // Picking from the list, Enter, or leaving the field commit the choice at once.
    connect(m_sourceTable, &QComboBox::activated, this, &TableDialog::commitSourceTable);
    connect(m_sourceTable->lineEdit(), &QLineEdit::editingFinished, this, &TableDialog::commitSourceTable);
    connect(m_targetTable, &QLineEdit::textEdited, this, [this] { m_targetEdited = true; });
    connect(m_watermark, &QComboBox::currentIndexChanged, this, &TableDialog::showWatermarkReason);
    for (QComboBox *combo : {m_targetConnection, m_mode, m_watermark, m_tiebreak})
        connect(combo, &QComboBox::currentIndexChanged, this, &TableDialog::revalidate);
    for (QLineEdit *edit : {m_targetTable, m_lookback, m_staleAfter, m_initialWatermark})
        connect(edit, &QLineEdit::textChanged, this, &TableDialog::revalidate);
    connect(m_keys, &QListWidget::itemChanged, this, &TableDialog::revalidate);
    // Typed or picked: the line edit's text is the zone.
    connect(m_sourceZone->lineEdit(), &QLineEdit::textChanged, this, &TableDialog::revalidate);
    connect(m_deletes->lineEdit(), &QLineEdit::textChanged, this, &TableDialog::revalidate);
    connect(m_maxSkipped, &QSpinBox::valueChanged, this, &TableDialog::revalidate);
}

bool TableDialog::remoteWorkPending() const {
    return m_remote->pendingCount() > 0;
}

std::optional<ConnectionSpec> TableDialog::connectionNamed(const QString &name) const {
    for (const ConnectionSpec &c : m_connections) {
        if (c.name == name)
            return c;
    }
    return std::nullopt;
}

void TableDialog::setStatus(const QString &lane, const QString &message) {
    if (message.isEmpty())
        m_statuses.remove(lane);
    else
        m_statuses.insert(lane, message);
    QString shown;
    for (const QString &l : {kPrepareLane, kColumnsLane, kTablesLane, kConnectionsLane}) {
        if (m_statuses.contains(l)) {
            shown = m_statuses.value(l);
            break;
        }
    }
    m_busyLabel->setText(shown);
    m_busyLabel->setToolTip(shown);
}

void TableDialog::loadConnections() {
    setStatus(kConnectionsLane, tr("Reading connections…"));
    m_gateway->submit(
        this, [](Workspace &ws) { return readConnectionChoices(ws); },
        [this](const ConnectionChoices &choices) {
            fillConnections(choices.connections, choices.source, choices.target);
        },
        [this](const QString &error) { setStatus(kConnectionsLane, error); });
}

void TableDialog::fillConnections(const QList<ConnectionSpec> &connections, const QString &source,
                                  const QString &target) {
    m_connections = connections;
    setStatus(kConnectionsLane,
              connections.isEmpty()
                  ? tr("The workspace has no connections yet: add them with File › Connections…")
                  : QString());
    {
        const QSignalBlocker block1(m_sourceConnection);
        const QSignalBlocker block2(m_targetConnection);
        for (const ConnectionSpec &c : connections) {
            m_sourceConnection->addItem(QStringLiteral("%1 — %2").arg(c.name, c.describe()), c.name);
            m_targetConnection->addItem(QStringLiteral("%1 — %2").arg(c.name, c.describe()), c.name);
        }
        // A new table starts with no direction chosen (findData of an empty name is -1), unless
        // every existing table goes the same way: picking by the order of the names once proposed
        // dst → src, writing into the source.
        m_sourceConnection->setCurrentIndex(
            m_sourceConnection->findData(m_existing ? m_existing->sourceConnection : source));
        m_targetConnection->setCurrentIndex(
            m_targetConnection->findData(m_existing ? m_existing->targetConnection : target));
    }
    sourceConnectionChanged();
}

void TableDialog::sourceConnectionChanged() {
    // Only MySQL/MariaDB holds zero dates ('0000-00-00'): elsewhere the choice means nothing.
    const std::optional<ConnectionSpec> source =
        connectionNamed(m_sourceConnection->currentData().toString());
    const bool mysql = source && source->kind == ConnectionKind::Mysql;
    m_zeroDatesNull->setEnabled(mysql);
    m_zeroDatesNull->setToolTip(
        mysql ? tr("A zero date ('0000-00-00') outside the watermark column is copied as NULL; unchecked, "
                   "the copy fails naming the column and the row")
              : tr("Only a MySQL/MariaDB source holds zero dates"));
    loadTables();
    revalidate();
}

void TableDialog::loadTables() {
    m_remote->cancel(kColumnsLane);
    m_describeDelay->stop();
    m_tableNames.clear();
    const auto connection = connectionNamed(m_sourceConnection->currentData().toString());
    if (!connection) {
        setStatus(kTablesLane, {});
        return;
    }
    setStatus(kTablesLane, tr("Listing the tables of %1…").arg(connection->name));
    m_remote->submit(
        kTablesLane, [spec = *connection](RemoteTask &task) { return listSourceTables(spec, task); },
        [this](const QStringList &names) {
            setStatus(kTablesLane, {});
            m_tableNames = names;
            // Even a connection with one table leaves it to the user: an OK enabled before anything
            // was chosen is a copy nobody asked for.
            const QString keep = m_existing ? m_existing->sourceTable : m_sourceTable->currentText();
            {
                const QSignalBlocker block(m_sourceTable);
                m_sourceTable->clear();
                m_sourceTable->addItems(names);
                m_sourceTable->setCurrentIndex(-1);
            }
            m_describedTable.clear();
            sourceTableEdited(keep);
            commitSourceTable();
        },
        [this](const QString &error) { setStatus(kTablesLane, error); });
}

void TableDialog::sourceTableEdited(const QString &text) {
    if (m_sourceTable->currentText() != text) {
        const QSignalBlocker block(m_sourceTable);
        m_sourceTable->setEditText(text);
    }
    if (!m_targetEdited)
        m_targetTable->setText(text);
    if (text == m_describedTable)
        return revalidate();
    // Another table: what was read (or is being read) for the last one no longer counts.
    m_remote->cancel(kColumnsLane);
    m_describedTable.clear();
    m_columnsLoaded = false;
    fillColumns({});
    setStatus(kColumnsLane, {});
    if (m_tableNames.contains(text))
        m_describeDelay->start();
    else
        m_describeDelay->stop();
}

void TableDialog::commitSourceTable() {
    m_describeDelay->stop();
    const QString table = m_sourceTable->currentText();
    if (table.isEmpty() || table == m_describedTable)
        return;
    if (!m_tableNames.contains(table)) {
        if (!m_tableNames.isEmpty())
            setStatus(kColumnsLane, tr("%1 has no table %2: choose one from the list.")
                                        .arg(m_sourceConnection->currentData().toString(), table));
        return;
    }
    loadColumns();
}

void TableDialog::loadColumns() {
    const auto connection = connectionNamed(m_sourceConnection->currentData().toString());
    const QString table = m_sourceTable->currentText();
    if (!connection || table.isEmpty())
        return;
    m_describedTable = table;
    m_columnsLoaded = false;
    setStatus(kColumnsLane, tr("Reading the columns of %1…").arg(table));
    m_remote->submit(
        kColumnsLane,
        [spec = *connection, table](RemoteTask &task) { return describeSourceColumns(spec, table, task); },
        [this](const QList<SourceColumn> &columns) {
            setStatus(kColumnsLane, {});
            m_columnsLoaded = true; // before filling: the fill revalidates with the column types
            fillColumns(columns);
            emit columnsReady();
        },
        [this](const QString &error) {
            m_describedTable.clear();
            fillColumns({});
            setStatus(kColumnsLane, error);
        });
}

void TableDialog::fillColumns(const QList<SourceColumn> &columns) {
    const QString previousWatermark = m_watermark->currentData(ColumnNameRole).toString();
    const QString previousTiebreak = m_tiebreak->currentData(ColumnNameRole).toString();
    QStringList previousKeys = checkedKeys();
    m_columns = columns;
    {
        const QSignalBlocker b1(m_watermark);
        const QSignalBlocker b2(m_tiebreak);
        const QSignalBlocker b3(m_keys);
        m_watermark->clear();
        m_tiebreak->clear();
        m_keys->clear();
        m_watermark->addItem(tr("(none — overwrite only)"), QString());
        m_tiebreak->addItem(tr("(none)"), QString());
        m_watermark->setItemData(0, QString(), ColumnNameRole);
        m_tiebreak->setItemData(0, QString(), ColumnNameRole);
        for (const SourceColumn &c : columns) {
            const QString label = QStringLiteral("%1  (%2)").arg(c.column.name, typeText(c));
            m_watermark->addItem(label);
            m_watermark->setItemData(m_watermark->count() - 1, c.column.name, ColumnNameRole);
            m_tiebreak->addItem(label);
            m_tiebreak->setItemData(m_tiebreak->count() - 1, c.column.name, ColumnNameRole);
            auto *item = new QListWidgetItem(label, m_keys);
            item->setData(ColumnNameRole, c.column.name);
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(Qt::Unchecked);
        }
        const std::optional<WatermarkSuggestion> suggestion = suggestWatermark(columns);
        m_suggestedWatermark = suggestion ? suggestion->column : QString();
        QString watermark = m_existing ? m_existing->watermarkColumn : previousWatermark;
        if (watermark.isEmpty() && !m_existing)
            watermark = m_suggestedWatermark;
        selectData(m_watermark, watermark);
        selectData(m_tiebreak, m_existing ? m_existing->tiebreakColumn : previousTiebreak);
        if (m_existing && previousKeys.isEmpty())
            previousKeys = m_existing->keyColumns;
        for (int i = 0; i < m_keys->count(); ++i) {
            QListWidgetItem *item = m_keys->item(i);
            if (previousKeys.contains(item->data(ColumnNameRole).toString()))
                item->setCheckState(Qt::Checked);
        }
    }
    showWatermarkReason();
    revalidate();
}

void TableDialog::showWatermarkReason() {
    const SourceColumn *column = sourceColumn(m_watermark->currentData(ColumnNameRole).toString());
    const QString qualities = column ? watermarkQualities(*column) : QString();
    if (qualities.isEmpty())
        m_watermarkReason->clear();
    else if (column->column.name == m_suggestedWatermark)
        m_watermarkReason->setText(tr("Suggested — %1: %2").arg(column->column.name, qualities));
    else
        m_watermarkReason->setText(QStringLiteral("%1: %2").arg(column->column.name, qualities));
}

QStringList TableDialog::checkedKeys() const {
    QStringList keys;
    for (int i = 0; i < m_keys->count(); ++i) {
        if (m_keys->item(i)->checkState() == Qt::Checked)
            keys << m_keys->item(i)->data(ColumnNameRole).toString();
    }
    return keys;
}

const SourceColumn *TableDialog::sourceColumn(const QString &name) const {
    for (const SourceColumn &c : m_columns) {
        if (c.column.name == name)
            return &c;
    }
    return nullptr;
}

TableDraft TableDialog::draft() const {
    TableDraft draft;
    TableSpec &spec = draft.spec;
    if (m_existing)
        spec = *m_existing;
    spec.sourceConnection = m_sourceConnection->currentData().toString();
    spec.sourceTable = m_sourceTable->currentText();
    spec.targetConnection = m_targetConnection->currentData().toString();
    spec.targetTable = m_targetTable->text();
    spec.mode = WriteMode(m_mode->currentData().toInt());
    spec.watermarkColumn = m_watermark->currentData(ColumnNameRole).toString();
    const SourceColumn *watermark = sourceColumn(spec.watermarkColumn);
    spec.watermarkType = watermark ? watermark->watermarkType : WatermarkType::None;
    spec.tiebreakColumn = m_tiebreak->currentData(ColumnNameRole).toString();
    spec.keyColumns = checkedKeys();
    spec.lookback = m_lookback->text().trimmed();
    spec.staleAfter = m_staleAfter->text().trimmed();
    try {
        spec.staleAfter = parseStaleAfter(spec.staleAfter, QString()); // "360m" is kept as "6h"
    } catch (const ValidationError &) {
        // kept as typed: revalidate() names it and keeps OK disabled
    }
    try {
        parseDeleteAction(m_deletes->currentText(), spec.deletes, QString());
    } catch (const ValidationError &) {
        // kept as it was: revalidate() names it and keeps OK disabled
    }
    const QString zone = m_sourceZone->currentText().trimmed();
    spec.sourceTimezone = zone == QLatin1String("UTC") ? QString() : zone;
    spec.maxSkipped = m_maxSkipped->value();
    spec.batchSize = m_batchSize->value();
    spec.expectRows = m_expectRows->isChecked();
    spec.commitPerBatch = m_commitPerBatch->isChecked();
    spec.addNewColumns = m_addNewColumns->isChecked();
    spec.active = m_active->isChecked();
    spec.zeroDates =
        m_zeroDatesNull->isEnabled() && m_zeroDatesNull->isChecked() ? ZeroDates::Null : ZeroDates::Fail;
    draft.initialWatermarkText = m_initialWatermark->text().trimmed();
    return draft;
}

void TableDialog::revalidate() {
    const TableDraft current = draft();
    const TableSpec &spec = current.spec;
    QStringList problems = checkTableRules(spec, Wording::Window);
    try {
        parseStaleAfter(spec.staleAfter, tr("Stale after"));
    } catch (const ValidationError &error) {
        problems << error.message();
    }
    try {
        DeletePolicy typed;
        parseDeleteAction(m_deletes->currentText(), typed, tr("Deletes"));
    } catch (const ValidationError &error) {
        problems << error.message();
    }
    // Rules that need the column types: only the dialog knows them before prepareTable.
    if (m_columnsLoaded) {
        if (const SourceColumn *c = sourceColumn(spec.watermarkColumn);
            c && c->watermarkType == WatermarkType::None)
            problems
                << tr("Column %1 (%2) cannot be a watermark: it must hold increasing integers or timestamps.")
                       .arg(c->column.name,
                            c->column.nativeType.isEmpty() ? tr("untyped") : c->column.nativeType);
        if (spec.mode == WriteMode::Merge && spec.keyColumns.isEmpty()) {
            const bool hasPrimaryKey =
                std::any_of(m_columns.cbegin(), m_columns.cend(),
                            [](const SourceColumn &c) { return c.column.primaryKeyOrdinal > 0; });
            if (!hasPrimaryKey)
                problems << tr("Merge needs key columns: %1 has no primary key, so tick the columns that "
                               "identify a row.")
                                .arg(spec.sourceTable);
        }
        if (!spec.tiebreakColumn.isEmpty() && spec.tiebreakColumn == spec.watermarkColumn)
            problems << tr("The tiebreak column must differ from the watermark column.");
    }
    showProblems(problems);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problems.isEmpty() && !m_validating);
}

void TableDialog::showProblems(const QStringList &problems) {
    m_problems = problems;
    QStringList shown = problems.mid(0, kShownProblems);
    if (problems.size() > kShownProblems)
        shown << tr("… and %n more (hover to see all)", nullptr, int(problems.size() - kShownProblems));
    const auto bullets = [](const QStringList &lines) {
        return lines.isEmpty() ? QString() : QStringLiteral("• ") + lines.join(QStringLiteral("\n• "));
    };
    m_problemLabel->setText(bullets(shown));
    m_problemLabel->setToolTip(bullets(problems));
}

QWidget *TableDialog::fieldAtFault(const QString &problem) const {
    // The problems are the dialog's own words (checkTableRules and prepareTable with
    // Wording::Window): each names the field it is about. Most specific words first: "the
    // source table itself" is about the target, "initial watermark" is not the watermark column.
    const auto says = [&problem](const char *words) {
        return problem.contains(QLatin1String(words), Qt::CaseInsensitive);
    };
    if (says("stale after"))
        return m_staleAfter;
    if (says("time zone") || says("turns its clocks back"))
        return m_sourceZone;
    if (says("deletes"))
        return m_deletes;
    if (says("source table itself") || says("already the target") || says("still belongs") ||
        says("target table"))
        return m_targetTable;
    if (says("source connection"))
        return m_sourceConnection;
    if (says("target connection"))
        return m_targetConnection;
    if (says("source table"))
        return m_sourceTable;
    if (says("initial watermark"))
        return m_initialWatermark;
    if (says("tiebreak"))
        return m_tiebreak;
    if (says("lookback"))
        return m_lookback;
    if (says("key columns"))
        return m_keys;
    if (says("watermark"))
        return m_watermark;
    if (says("commit each batch"))
        return m_commitPerBatch;
    if (says("batch size"))
        return m_batchSize;
    if (says("skipped"))
        return m_maxSkipped;
    return nullptr;
}

void TableDialog::focusFaultyField() {
    // Disabling OK while checking moved the focus on to Cancel, where Enter threw the form
    // away. A problem that names no field (a source that did not answer) leaves it on OK, so
    // Enter tries again.
    QWidget *field = m_problems.isEmpty() ? nullptr : fieldAtFault(m_problems.first());
    if (!field || !field->isEnabled())
        field = m_buttons->button(QDialogButtonBox::Ok);
    field->setFocus(Qt::OtherFocusReason);
}

void TableDialog::accept() {
    revalidate();
    if (!m_problems.isEmpty())
        return focusFaultyField();
    if (m_validating)
        return;
    m_validating = true;
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    setStatus(kPrepareLane, tr("Checking against the source…"));
    const TableDraft current = draft();
    m_remote->submit(
        kPrepareLane,
        [current, path = m_gateway->path()](RemoteTask &task) {
            // Its own workspace connection: the window's workspace thread stays free meanwhile.
            const std::unique_ptr<Workspace> workspace = Workspace::open(path);
            return prepareTable(*workspace, current, Wording::Window, &task);
        },
        [this, id = current.spec.id](TableSpec prepared) {
            m_validating = false;
            prepared.id = id;
            m_prepared = prepared;
            setStatus(kPrepareLane, {});
            QDialog::accept();
        },
        [this](const QString &error) {
            m_validating = false;
            setStatus(kPrepareLane, {});
            showProblems({error});
            m_buttons->button(QDialogButtonBox::Ok)->setEnabled(true);
            focusFaultyField();
        });
}

void TableDialog::reject() {
    m_remote->cancelAll();
    QDialog::reject();
}

} // namespace tidemark
