// SPDX-License-Identifier: MIT
#include "ui/mainwindow/welcomepage.h"

#include "model/storage/serverworkspaceaddress.h"
#include "model/storage/workspacelocation.h"

#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace tidemark {

namespace {

// A button that is `action`: its text (shortcut and all), enabled state and tooltip follow it.
QPushButton *buttonFor(QAction *action, QWidget *parent) {
    auto *button = new QPushButton(parent);
    button->setObjectName(action->objectName() + QStringLiteral("Button"));
    const auto follow = [button, action] {
        QString text = QString(action->text()).remove(QLatin1Char('&'));
        if (!action->shortcut().isEmpty())
            text += QStringLiteral("  (%1)").arg(action->shortcut().toString(QKeySequence::NativeText));
        button->setText(text);
        button->setEnabled(action->isEnabled());
        button->setToolTip(action->toolTip());
    };
    follow();
    QObject::connect(action, &QAction::changed, button, follow);
    QObject::connect(button, &QPushButton::clicked, action, &QAction::trigger);
    return button;
}

} // namespace

WelcomePage::WelcomePage(QAction *newAction, QAction *openAction, QAction *openServerAction,
                         QAction *demoAction, QAction *reopenLastAction, QWidget *parent)
    : QWidget(parent)
    , m_demo(buttonFor(demoAction, this))
    , m_recent(new QListWidget(this))
    , m_recentTitle(new QLabel(tr("Recent workspaces"), this))
    , m_note(new QLabel(this)) {
    setObjectName(QStringLiteral("welcomePage"));
    auto *title = new QLabel(tr("<h2>Welcome to Tidemark</h2>"), this);
    auto *intro =
        new QLabel(tr("Tidemark copies tables from a source database to a target, each run taking "
                      "only the rows past the table's watermark. A workspace holds the connections, "
                      "the tables, their watermarks, the schedules and the history of every run: "
                      "a file on this machine, or a PostgreSQL database a team shares."),
                   this);
    intro->setWordWrap(true);

    QPushButton *create = buttonFor(newAction, this);
    QPushButton *open = buttonFor(openAction, this);
    QPushButton *openServer = buttonFor(openServerAction, this);
    create->setDefault(true);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(create);
    buttons->addWidget(open);
    buttons->addWidget(openServer);
    buttons->addWidget(m_demo);
    buttons->addStretch(1);

    m_recent->setObjectName(QStringLiteral("recentWorkspaces"));
    m_recentTitle->setBuddy(m_recent);
    const auto choose = [this](QListWidgetItem *item) {
        if (item)
            emit recentChosen(item->data(Qt::UserRole).toString());
    };
    connect(m_recent, &QListWidget::itemActivated, this, choose);

    auto *reopen = new QCheckBox(QString(reopenLastAction->text()).remove(QLatin1Char('&')), this);
    reopen->setObjectName(QStringLiteral("reopenLastCheck"));
    reopen->setChecked(reopenLastAction->isChecked());
    connect(reopen, &QCheckBox::toggled, reopenLastAction, &QAction::setChecked);
    connect(reopenLastAction, &QAction::toggled, reopen, &QCheckBox::setChecked);

    m_note->setObjectName(QStringLiteral("welcomeNote"));
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // A column of reading width, centred: on a wide screen the text does not run across it.
    auto *column = new QWidget(this);
    column->setMaximumWidth(760);
    auto *layout = new QVBoxLayout(column);
    layout->addWidget(title);
    layout->addWidget(intro);
    layout->addSpacing(8);
    layout->addLayout(buttons);
    layout->addWidget(m_note);
    layout->addSpacing(8);
    layout->addWidget(m_recentTitle);
    layout->addWidget(m_recent, 1);
    layout->addWidget(reopen);
    layout->addStretch(0); // with no recent list, the rest stays together at the top
    auto *outer = new QHBoxLayout(this);
    outer->addStretch(1);
    outer->addWidget(column, 4);
    outer->addStretch(1);
    setTabOrder(create, open);
    setTabOrder(open, openServer);
    setTabOrder(openServer, m_demo);
    setTabOrder(m_demo, m_recent);
    setTabOrder(m_recent, reopen);
    setRecent({});
}

void WelcomePage::setRecent(const QStringList &paths) {
    m_recent->clear();
    for (const QString &path : paths) {
        const QFileInfo file(path);
        const QString shown =
            WorkspaceLocation::isServer(path)
                ? tr("%1 — server workspace").arg(ServerWorkspaceAddress::fromLocation(path).displayName())
            : file.exists()
                ? tr("%1 — %2").arg(file.fileName(), QDir::toNativeSeparators(file.path()))
                : tr("%1 — %2 (missing)").arg(file.fileName(), QDir::toNativeSeparators(file.path()));
        auto *item = new QListWidgetItem(shown, m_recent);
        item->setData(Qt::UserRole, path);
        item->setToolTip(QDir::toNativeSeparators(path));
    }
    m_recentTitle->setText(paths.isEmpty() ? tr("No recent workspaces yet.") : tr("&Recent workspaces"));
    m_recent->setVisible(!paths.isEmpty());
    if (!paths.isEmpty())
        m_recent->setCurrentRow(0);
}

void WelcomePage::setNote(const QString &text) {
    m_note->setText(text);
}

} // namespace tidemark
