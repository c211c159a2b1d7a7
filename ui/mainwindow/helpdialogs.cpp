// SPDX-License-Identifier: MIT
#include "ui/mainwindow/helpdialogs.h"

#include "model/storage/workspacelocation.h"

#include <QAction>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace tidemark {

ShortcutsDialog::ShortcutsDialog(const QList<QAction *> &actions, QWidget *parent)
    : QDialog(parent) {
    setWindowTitle(tr("Keyboard Shortcuts"));
    auto *table = new QTableWidget(0, 2, this);
    table->setObjectName(QStringLiteral("shortcutsTable"));
    table->setHorizontalHeaderLabels({tr("Action"), tr("Shortcut")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->horizontalHeader()->setStretchLastSection(true);
    for (const QAction *action : actions) {
        if (action->shortcuts().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence &key : action->shortcuts())
            keys << key.toString(QKeySequence::NativeText);
        // The menu's words: the toolbar's short labels are ambiguous here ("Cancel" for Cancel
        // Run). The undo actions' text names the command ("Undo Pause orders"), so they give
        // their plain verb as shortcutListName.
        QString name = action->property("shortcutListName").toString();
        if (name.isEmpty())
            name = action->text();
        name.remove(QLatin1Char('&'));
        const int row = table->rowCount();
        table->insertRow(row);
        table->setItem(row, 0, new QTableWidgetItem(name));
        table->setItem(row, 1, new QTableWidgetItem(keys.join(QStringLiteral(", "))));
    }
    table->sortItems(0);
    table->resizeColumnToContents(0);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(table);
    layout->addWidget(buttons);
    resize(460, 520);
}

LogFileDialog::LogFileDialog(const QString &workspacePath, QWidget *parent)
    : QDialog(parent) {
    setWindowTitle(tr("Log File"));
    auto *label = new QLabel(this);
    label->setObjectName(QStringLiteral("logFilePath"));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    const QString path = WorkspaceLocation::logFileFor(workspacePath);
    if (workspacePath.isEmpty()) {
        label->setText(tr("Each workspace writes its log beside it (<i>workspace</i>.log). Open a "
                          "workspace to see where."));
    } else if (path.isEmpty()) {
        label->setText(tr("This workspace cannot be named, so it writes no log file."));
    } else {
        label->setText((WorkspaceLocation::isServer(workspacePath)
                            ? tr("The log of this server workspace on this machine; every machine that "
                                 "opens it keeps its own, and every iteration's log is in the run history "
                                 "(rotated at 5 MB, five files kept):\n%1")
                            : tr("The log of this workspace (rotated at 5 MB, five files kept):\n%1"))
                           .arg(QDir::toNativeSeparators(path)));
        QPushButton *open = buttons->addButton(tr("Open Folder"), QDialogButtonBox::ActionRole);
        open->setObjectName(QStringLiteral("openLogFolder"));
        connect(open, &QPushButton::clicked, this,
                [path] { QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(path).absolutePath())); });
    }
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(label);
    layout->addWidget(buttons);
}

QString aboutText() {
    return QCoreApplication::translate("tidemark::MainWindow",
                                       "<h3>Tidemark %1</h3>"
                                       "<p>Incremental table copies with watermarks.</p>"
                                       "<p>Built with Qt %2, running on Qt %3.</p>"
                                       "<p>Released under the MIT license.</p>")
        .arg(QStringLiteral(TIDEMARK_VERSION), QStringLiteral(QT_VERSION_STR),
             QString::fromLatin1(qVersion()));
}

} // namespace tidemark
