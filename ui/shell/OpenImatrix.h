#pragma once
// File › Open Importance Matrix: picks a llama-imatrix file (.gguf or .dat), loads it in the
// background against the current model, then opens its page as a tab, puts the importance
// strip under that model's tensor heatmap and makes it the model's matrix (ModelPage), which
// Compare, Recipe and Convert preselect while the page is open.
// File › Compute Importance Matrix from Text… computes one for the current model (below).

class MainWindow;
class QString;

void chooseImportanceMatrix(MainWindow* window);
void openImportanceMatrix(MainWindow* window, const QString& path);
// File › Compute Importance Matrix from Text…: ComputeImatrixDialog for the current model; the
// matrix it writes is opened as above.
void computeImportanceMatrix(MainWindow* window);
