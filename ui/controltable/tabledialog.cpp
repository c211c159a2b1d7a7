// SPDX-License-Identifier: MIT
#include "ui/controltable/tabledialog.h"

#include "model/common/error.h"
#include "model/storage/workspace.h"
#include "ui/common/workspacegateway.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
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
    return text;
}

void selectData(QComboBox *combo, const QString &value) {
    const int index = combo->findData(value, ColumnNameRole);
    combo->setCurrentIndex(index >= 0 ? index : 0);
}

} // namespace

TableDialog::TableDialog(WorkspaceGateway *gateway, const std::optional<TableSpec> &existing, QWidget *parent)
    : QDialog(parent)
    , m_gateway(gateway)
    , m_existing(existing) {
    setWindowTitle(existing ? tr("Edit table %1").arg(existing->sourceDisplay()) : tr("Add table"));
    buildUi();
    if (m_existing) {
        const TableSpec &spec = *m_existing;
        m_targetTable->setText(spec.targetTable);
        m_targetEdited = true;
        m_mode->setCurrentIndex(m_mode->findData(int(spec.mode)));
        m_lookback->setText(spec.lookback);
        m_initialWatermark->setText(spec.initialWatermark.display());
        m_maxSkipped->setValue(int(qMin<qint64>(spec.maxSkipped, m_maxSkipped->maximum())));
        m_batchSize->setValue(spec.batchSize);
        m_expectRows->setChecked(spec.expectRows);
        m_commitPerBatch->setChecked(spec.commitPerBatch);
        m_addNewColumns->setChecked(spec.addNewColumns);
        m_active->setChecked(spec.active);
    }
    loadConnections();
    revalidate();
}

void TableDialog::buildUi() {
    auto *form = new QFormLayout;
    m_sourceConnection = new QComboBox(this);
    m_sourceConnection->setObjectName(QStringLiteral("sourceConnection"));
    m_sourceTable = new QComboBox(this);
    m_sourceTable->setObjectName(QStringLiteral("sourceTable"));
    m_sourceTable->setEditable(true);
    m_sourceTable->setInsertPolicy(QComboBox::NoInsert);
    m_targetConnection = new QComboBox(this);
    m_targetConnection->setObjectName(QStringLiteral("targetConnection"));
    m_targetTable = new QLineEdit(this);
    m_targetTable->setObjectName(QStringLiteral("targetTable"));
    m_mode = new QComboBox(this);
    m_mode->setObjectName(QStringLiteral("mode"));
    m_mode->addItem(tr("append — insert new rows"), int(WriteMode::Append));
    m_mode->addItem(tr("merge — upsert on key columns"), int(WriteMode::Merge));
    m_mode->addItem(tr("overwrite — replace the whole target"), int(WriteMode::Overwrite));
    m_watermark = new QComboBox(this);
    m_watermark->setObjectName(QStringLiteral("watermark"));
    m_tiebreak = new QComboBox(this);
    m_tiebreak->setObjectName(QStringLiteral("tiebreak"));
    m_keys = new QListWidget(this);
    m_keys->setObjectName(QStringLiteral("keys"));
    m_keys->setMaximumHeight(110);
    m_lookback = new QLineEdit(this);
    m_lookback->setObjectName(QStringLiteral("lookback"));
    m_lookback->setPlaceholderText(tr("none — e.g. 2h, 30m, 1d for timestamps; 500 for integers"));
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

    form->addRow(tr("Source connection:"), m_sourceConnection);
    form->addRow(tr("Source table:"), m_sourceTable);
    form->addRow(tr("Target connection:"), m_targetConnection);
    form->addRow(tr("Target table:"), m_targetTable);
    form->addRow(tr("Write mode:"), m_mode);
    form->addRow(tr("Watermark column:"), m_watermark);
    form->addRow(tr("Tiebreak column:"), m_tiebreak);
    form->addRow(tr("Key columns:"), m_keys);
    form->addRow(tr("Lookback:"), m_lookback);
    form->addRow(tr("Initial watermark:"), m_initialWatermark);
    form->addRow(tr("Max skipped rows:"), m_maxSkipped);
    form->addRow(tr("Batch size:"), m_batchSize);
    form->addRow(QString(), m_expectRows);
    form->addRow(QString(), m_commitPerBatch);
    form->addRow(QString(), m_addNewColumns);
    form->addRow(QString(), m_active);

    m_problemLabel = new QLabel(this);
    m_problemLabel->setObjectName(QStringLiteral("problems"));
    m_problemLabel->setWordWrap(true);
    m_problemLabel->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_busyLabel = new QLabel(this);
    m_busyLabel->setObjectName(QStringLiteral("busy"));
    m_busyLabel->setWordWrap(true);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &TableDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &TableDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problemLabel);
    layout->addWidget(m_busyLabel);
    layout->addWidget(m_buttons);

    connect(m_sourceConnection, &QComboBox::currentIndexChanged, this, &TableDialog::loadTables);
    connect(m_sourceTable, &QComboBox::currentTextChanged, this, [this](const QString &text) {
        if (!m_targetEdited)
            m_targetTable->setText(text);
        loadColumns();
    });
    connect(m_targetTable, &QLineEdit::textEdited, this, [this] { m_targetEdited = true; });
    for (QComboBox *combo : {m_targetConnection, m_mode, m_watermark, m_tiebreak})
        connect(combo, &QComboBox::currentIndexChanged, this, &TableDialog::revalidate);
    for (QLineEdit *edit : {m_targetTable, m_lookback, m_initialWatermark})
        connect(edit, &QLineEdit::textChanged, this, &TableDialog::revalidate);
    connect(m_keys, &QListWidget::itemChanged, this, &TableDialog::revalidate);
    connect(m_maxSkipped, &QSpinBox::valueChanged, this, &TableDialog::revalidate);
}

void TableDialog::loadConnections() {
    setBusy(tr("Reading connections…"));
    m_gateway->submit(
        this, [](Workspace &ws) { return ws.connections(); },
        [this](const QList<ConnectionSpec> &connections) {
            setBusy({});
            const QSignalBlocker block1(m_sourceConnection);
            const QSignalBlocker block2(m_targetConnection);
            for (const ConnectionSpec &c : connections) {
                m_sourceConnection->addItem(QStringLiteral("%1 — %2").arg(c.name, c.describe()), c.name);
                m_targetConnection->addItem(QStringLiteral("%1 — %2").arg(c.name, c.describe()), c.name);
            }
            if (m_existing) {
                m_sourceConnection->setCurrentIndex(
                    qMax(0, m_sourceConnection->findData(m_existing->sourceConnection)));
                m_targetConnection->setCurrentIndex(
                    qMax(0, m_targetConnection->findData(m_existing->targetConnection)));
            } else if (connections.size() > 1) {
                m_targetConnection->setCurrentIndex(1); // copying a table onto itself is rarely meant
            }
            if (connections.isEmpty())
                setBusy(tr("The workspace has no connections yet: add them with Workspace › Connections…"));
            loadTables();
        },
        [this](const QString &error) { setBusy(error); });
}

void TableDialog::loadTables() {
    const QString connection = m_sourceConnection->currentData().toString();
    if (connection.isEmpty())
        return;
    const quint64 request = ++m_tablesRequest;
    setBusy(tr("Listing the tables of %1…").arg(connection));
    m_gateway->submit(
        this, [connection](Workspace &ws) { return listSourceTables(ws, connection); },
        [this, request](const QStringList &names) {
            if (request != m_tablesRequest)
                return;
            setBusy({});
            const QString keep = m_existing ? m_existing->sourceTable : m_sourceTable->currentText();
            {
                const QSignalBlocker block(m_sourceTable);
                m_sourceTable->clear();
                m_sourceTable->addItems(names);
                m_sourceTable->setCurrentIndex(-1);
                m_sourceTable->setEditText(keep.isEmpty() && !names.isEmpty() ? names.first() : keep);
            }
            if (!m_targetEdited)
                m_targetTable->setText(m_sourceTable->currentText());
            loadColumns();
        },
        [this, request](const QString &error) {
            if (request == m_tablesRequest)
                setBusy(error);
        });
}

void TableDialog::loadColumns() {
    const QString connection = m_sourceConnection->currentData().toString();
    const QString table = m_sourceTable->currentText();
    const quint64 request = ++m_columnsRequest;
    m_columnsLoaded = false;
    if (connection.isEmpty() || table.isEmpty()) {
        fillColumns({});
        return;
    }
    setBusy(tr("Reading the columns of %1:%2…").arg(connection, table));
    m_gateway->submit(
        this, [connection, table](Workspace &ws) { return describeSourceColumns(ws, connection, table); },
        [this, request](const QList<SourceColumn> &columns) {
            if (request != m_columnsRequest)
                return;
            setBusy({});
            m_columnsLoaded = true; // before filling: the fill revalidates with the column types
            fillColumns(columns);
            emit columnsReady();
        },
        [this, request](const QString &error) {
            if (request != m_columnsRequest)
                return;
            fillColumns({});
            setBusy(error);
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
        QString watermark = m_existing ? m_existing->watermarkColumn : previousWatermark;
        if (watermark.isEmpty() && !m_existing) {
            // Suggest the first column that can order a watermark, timestamps first.
            for (WatermarkType wanted : {WatermarkType::Timestamp, WatermarkType::Integer}) {
                for (const SourceColumn &c : columns) {
                    if (watermark.isEmpty() && c.watermarkType == wanted && c.column.primaryKeyOrdinal == 0)
                        watermark = c.column.name;
                }
            }
        }
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
    revalidate();
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
    spec.maxSkipped = m_maxSkipped->value();
    spec.batchSize = m_batchSize->value();
    spec.expectRows = m_expectRows->isChecked();
    spec.commitPerBatch = m_commitPerBatch->isChecked();
    spec.addNewColumns = m_addNewColumns->isChecked();
    spec.active = m_active->isChecked();
    draft.initialWatermarkText = m_initialWatermark->text().trimmed();
    return draft;
}

void TableDialog::revalidate() {
    const TableDraft current = draft();
    const TableSpec &spec = current.spec;
    QStringList problems;
    if (spec.sourceConnection.isEmpty())
        problems << tr("Choose a source connection.");
    if (spec.sourceTable.isEmpty())
        problems << tr("Choose a source table.");
    if (spec.targetConnection.isEmpty())
        problems << tr("Choose a target connection.");
    if (spec.targetTable.trimmed().isEmpty())
        problems << tr("Name the target table.");
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
    for (const QString &rule : checkTableRules(spec)) {
        if (!problems.contains(rule))
            problems << rule;
    }
    m_problems = problems;
    m_problemLabel->setText(
        problems.isEmpty() ? QString() : QStringLiteral("• ") + problems.join(QStringLiteral("\n• ")));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problems.isEmpty() && !m_validating);
}

void TableDialog::setBusy(const QString &message) {
    m_busyLabel->setText(message);
}

void TableDialog::accept() {
    revalidate();
    if (!m_problems.isEmpty() || m_validating)
        return;
    m_validating = true;
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    setBusy(tr("Checking against the source…"));
    const TableDraft current = draft();
    m_gateway->submit(
        this, [current](Workspace &ws) { return prepareTable(ws, current); },
        [this, id = current.spec.id](TableSpec prepared) {
            m_validating = false;
            prepared.id = id;
            m_prepared = prepared;
            setBusy({});
            QDialog::accept();
        },
        [this](const QString &error) {
            m_validating = false;
            setBusy({});
            m_problems = QStringList{error};
            m_problemLabel->setText(QStringLiteral("• ") + error);
            m_buttons->button(QDialogButtonBox::Ok)->setEnabled(true);
        });
}

} // namespace tidemark
