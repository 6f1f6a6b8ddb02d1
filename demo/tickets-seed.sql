-- Example tickets for the demo database (made up, not customer data).
INSERT INTO ticket (title, body, status) VALUES
    ('Printer on the third floor is jammed', 'Paper tray two jams on every job.', 'open'),
    ('Café menu shows the wrong prices', 'The crème brûlée is listed twice.', 'pending'),
    ('Export to CSV drops the last row', 'Happens with more than 1000 rows.', 'open'),
    ('客户工单搜索不工作', '搜索中文标题时没有结果。', 'open'),
    ('Password reset e-mail never arrives', 'Checked the spam folder too.', 'closed'),
    ('Search finds "quoted" titles only sometimes', 'Double quotes in titles.', 'open');
