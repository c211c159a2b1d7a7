// SPDX-License-Identifier: MIT
#include "ui/run/rejectedrowsdialog.h"

#include "model/common/error.h"
#include "model/models/displayformat.h"
#include "model/models/rejectedrowscsv.h"
#include "model/models/rejectedrowsmodel.h"
#include "model/storage/workspace.h"
#include "ui/common/workspacegateway.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace tidemark {

RejectedRowsDialog::RejectedRowsDialog(WorkspaceGateway *gateway, const IterationRecord &iteration,
                                       QWidget *parent)
    : QDialog(parent)
    , m_gateway(gateway)
    , m_iteration(iteration)
    , m_model(new RejectedRowsModel(this))
    , m_view(new QTableView(this))
    , m_details(new QPlainTextEdit(this))
    , m_summary(new QLabel(this))
    , m_status(new QLabel(this))
    , m_export(new QPushButton(tr("Export CSV…"), this)) {
    setObjectName(QStringLiteral("rejectedRowsDialog"));
    setWindowTitle(
        tr("Rejected rows — %1 → %2, run %3").arg(iteration.source, iteration.target).arg(iteration.runId));
    m_view->setObjectName(QStringLiteral("rejectedRowsView"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setColumnWidth(RejectedRowsModel::Time, 150);
    m_view->setColumnWidth(RejectedRowsModel::Key, 140);
    m_view->setColumnWidth(RejectedRowsModel::Error, 260);
    m_details->setObjectName(QStringLiteral("rejectedRowDetails"));
    m_details->setReadOnly(true);
    m_details->setPlaceholderText(tr("Select a row to see its key, error and values whole."));
    m_summary->setObjectName(QStringLiteral("rejectedRowsSummary"));
    m_status->setObjectName(QStringLiteral("rejectedRowsStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_export->setObjectName(QStringLiteral("exportRejectedRows"));
    connect(m_export, &QPushButton::clicked, this, &RejectedRowsDialog::exportCsv);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &RejectedRowsDialog::updateSummary);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &RejectedRowsDialog::showSelected);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_view);
    splitter->addWidget(m_details);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_export, QDialogButtonBox::ActionRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    resize(960, 520);

    m_model->setIteration(iteration.id, [this](qint64 iterationId, qint64 afterId, int limit) {
        requestPage(iterationId, afterId, limit);
    });
    updateSummary();
    if (!m_gateway)
        return;
    m_gateway->submit(
        this, [id = iteration.id](Workspace &ws) { return ws.iterationRejectCount(id); },
        [this](qint64 total) {
            m_total = total;
            updateSummary();
            emit countLoaded(total);
        },
        [this](const QString &error) { m_status->setText(error); });
    m_model->fetchMore({});
}

void RejectedRowsDialog::requestPage(qint64 iterationId, qint64 afterId, int limit) {
    if (!m_gateway) {
        m_model->pageFailed(iterationId);
        return;
    }
    m_gateway->submit(
        this,
        [iterationId, afterId, limit](Workspace &ws) {
            return ws.iterationRejects(iterationId, afterId, limit);
        },
        [this, iterationId, afterId](const QList<RejectedRow> &rows) {
            m_model->appendPage(iterationId, afterId, rows);
            updateSummary();
        },
        [this, iterationId](const QString &error) {
            m_model->pageFailed(iterationId);
            m_status->setText(error);
        });
}

void RejectedRowsDialog::updateSummary() {
    const int shown = m_model->rowCount();
    if (m_total < 0)
        m_summary->setText(tr("Counting the rejected rows…"));
    else if (m_total == 0)
        m_summary->setText(tr("This iteration rejected no rows."));
    else if (shown < m_total)
        m_summary->setText(tr("%1 rejected rows; %2 loaded (scroll for more)")
                               .arg(formatCount(m_total), formatCount(shown)));
    else
        m_summary->setText(tr("%1 rejected rows").arg(formatCount(m_total)));
    m_export->setEnabled(m_total != 0);
}

void RejectedRowsDialog::showSelected() {
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid()) {
        m_details->clear();
        return;
    }
    const int row = current.row();
    const auto whole = [this, row](int column) {
        return m_model->index(row, column).data(Qt::ToolTipRole).toString();
    };
    m_details->setPlainText(tr("Key: %1\nError: %2\nValues:\n%3")
                                .arg(whole(RejectedRowsModel::Key), whole(RejectedRowsModel::Error),
                                     whole(RejectedRowsModel::Values)));
}

void RejectedRowsDialog::exportCsv() {
    const QString name =
        QStringLiteral("tidemark-rejects-run%1-table%2.csv").arg(m_iteration.runId).arg(m_iteration.tableId);
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export rejected rows"), name, tr("CSV files (*.csv)"));
    if (!path.isEmpty())
        exportCsvTo(path);
}

void RejectedRowsDialog::exportCsvTo(const QString &path) {
    if (!m_gateway)
        return;
    struct Outcome {
        qint64 rows = -1;
        QString error;
    };
    m_export->setEnabled(false);
    m_status->setText(tr("Writing %1…").arg(QDir::toNativeSeparators(path)));
    auto *watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, path] {
        const Outcome outcome = watcher->result();
        watcher->deleteLater();
        m_export->setEnabled(true);
        const bool ok = outcome.error.isEmpty();
        const QString message = ok ? tr("Exported %1 rejected rows to %2")
                                         .arg(formatCount(outcome.rows), QDir::toNativeSeparators(path))
                                   : tr("Could not export the rejected rows: %1").arg(outcome.error);
        m_status->setText(message);
        emit exportFinished(ok, message);
    });
    // Its own connection on a worker: a large export holds up neither the GUI thread nor the
    // gateway's queue of workspace edits.
    watcher->setFuture(QtConcurrent::run([workspacePath = m_gateway->path(), id = m_iteration.id, path] {
        Outcome outcome;
        try {
            auto workspace = Workspace::open(workspacePath);
            outcome.rows = writeRejectedRowsCsv(*workspace, id, path);
        } catch (const Error &e) {
            outcome.error = e.message();
        } catch (const std::exception &e) {
            outcome.error = QString::fromUtf8(e.what());
        }
        return outcome;
    }));
}

} // namespace tidemark
