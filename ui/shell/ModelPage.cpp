#include "ui/shell/ModelPage.h"

#include "ui/experts/ExpertsPage.h"
#include "ui/graph/GraphPage.h"
#include "ui/session/FileChangeWatcher.h"
#include "ui/metadata/MetadataPage.h"
#include "ui/overview/OverviewPage.h"
#include "ui/tokenizer/TokenizerPage.h"
#include "ui/tensor/TensorBrowser.h"
#include "ui/tensor/TensorViewPage.h"

#include <QFileInfo>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QSettings>
#include <QVBoxLayout>

#include <algorithm>

namespace {
const char* const kSplitterKey = "modelPage/tensorSplitter";
}

ModelPage::ModelPage(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QWidget(parent), m_model(std::move(model)), m_pages(new QTabWidget(this))
{
    m_pages->setObjectName(QStringLiteral("modelPages"));
    m_pages->addTab(new OverviewPage(m_model, m_pages), tr("Overview"));
    m_metadata = new MetadataPage(m_model, m_pages);
    m_pages->addTab(m_metadata, tr("Metadata"));
    connect(m_metadata, &MetadataPage::unsavedEditsChanged, this, &ModelPage::unsavedEditsChanged);
    m_pages->addTab(new TokenizerPage(m_model, m_pages), tr("Tokenizer"));
    m_tensorsPage = createTensorsPage();
    m_pages->addTab(m_tensorsPage, tr("Tensors"));
    auto* experts = new ExpertsPage(m_model, m_pages);
    m_pages->addTab(experts, tr("Experts"));
    // An expert picked on the experts page opens in the full tensor view.
    connect(experts, &ExpertsPage::openExpert, this, [this](int tensorIndex, int expert) {
        showTensorsPage();
        m_browser->selectTensor(tensorIndex);
        m_tensorPage->selectExpertIndex(expert);
    });
    connect(experts, &ExpertsPage::exportFinished, this, &ModelPage::statusMessage);
    auto* graph = new GraphPage(m_model, m_pages);
    m_pages->addTab(graph, tr("Graph"));
    connect(graph, &GraphPage::openTensor, this, [this](int tensorIndex) {
        showTensorsPage();
        m_browser->selectTensor(tensorIndex);
    });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(createChangeBanner());
    layout->addWidget(m_pages);
}

QWidget* ModelPage::createChangeBanner()
{
    m_changeBanner = new QLabel(this);
    m_changeBanner->setObjectName(QStringLiteral("fileChangedBanner"));
    m_changeBanner->setWordWrap(true);
    m_changeBanner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_changeBanner->setMargin(8);
    m_changeBanner->setAutoFillBackground(true);
    QPalette warning = m_changeBanner->palette();
    warning.setColor(QPalette::Window, QColor(0xf8, 0xd7, 0xda));
    warning.setColor(QPalette::WindowText, QColor(0x58, 0x15, 0x1c));
    m_changeBanner->setPalette(warning);
    m_changeBanner->hide();
    m_changeWatcher = new FileChangeWatcher(m_model, this);
    connect(m_changeWatcher, &FileChangeWatcher::fileChanged, this, [this](const QString& path, const QString& reason) {
        m_changeBanner->setText(tr("<b>%1 changed on disk since it was opened.</b> %2<br>The metadata and tensor list "
                                   "shown are still the ones read at open; tensor views now fail instead of showing "
                                   "other data. Close this tab and open the file again.")
                                    .arg(QFileInfo(path).fileName().toHtmlEscaped(), reason.toHtmlEscaped()));
        // The name first (a user with many tabs looks for it); the whole path on hover.
        m_changeBanner->setToolTip(path);
        m_changeBanner->show();
        emit statusMessage(false, tr("%1 changed on disk").arg(QFileInfo(path).fileName()));
    });
    return m_changeBanner;
}

QWidget* ModelPage::createTensorsPage()
{
    m_browser = new TensorBrowser(m_model, this);
    m_tensorPage = new TensorViewPage(this);
    connect(m_browser, &TensorBrowser::tensorSelected, this, [this](int index) {
        m_tensorPage->setTensor(m_model, index >= 0 ? &m_model->tensors()[static_cast<std::size_t>(index)] : nullptr);
    });
    connect(m_tensorPage, &TensorViewPage::exportFinished, this, &ModelPage::statusMessage);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("tensorSplitter"));
    splitter->addWidget(m_browser);
    splitter->addWidget(m_tensorPage);
    splitter->setStretchFactor(1, 2);
    // The index pane wide enough for each tensor's name, type and shape whole.
    splitter->setSizes({std::max(420, m_browser->sizeHint().width()), 860});
    const QByteArray state = QSettings().value(kSplitterKey).toByteArray();
    if (!state.isEmpty())
        splitter->restoreState(state);
    connect(splitter, &QSplitter::splitterMoved, this, [splitter]() { QSettings().setValue(kSplitterKey, splitter->saveState()); });
    return splitter;
}

bool ModelPage::hasUnsavedEdits() const
{
    return m_metadata->hasUnsavedEdits();
}

void ModelPage::showTensorsPage()
{
    m_pages->setCurrentWidget(m_tensorsPage);
}
